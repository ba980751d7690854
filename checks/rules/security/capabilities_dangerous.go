package security

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

// dangerousCaps are capabilities that amount to control of the node or
// its network when a container is compromised.
var dangerousCaps = map[string]bool{
	"ALL": true, "SYS_ADMIN": true, "NET_ADMIN": true, "SYS_PTRACE": true, "SYS_MODULE": true, "NET_RAW": true,
	"SYS_RAWIO": true, "SYS_BOOT": true, "SYS_TIME": true, "DAC_READ_SEARCH": true, "BPF": true, "PERFMON": true,
	"MAC_ADMIN": true, "MAC_OVERRIDE": true, "SYSLOG": true,
}

var capabilitiesDangerous = &checks.Rule{
	ID:       "capabilities-dangerous",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline",
	Why:      "capabilities such as SYS_ADMIN, NET_ADMIN, SYS_PTRACE, SYS_MODULE or NET_RAW give a compromised container power over the node or its network",
	Check: linuxPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.AllContainers() {
			caps := containerSecurityContext(c).Capabilities
			if caps == nil {
				continue
			}
			for i, a := range caps.Add {
				n := capName(a)
				if !dangerousCaps[n] {
					continue
				}
				p := c.Path.Child("securityContext", "capabilities", "add", manifest.Index(i))
				out = append(out, checks.At(obj, p, fmt.Sprintf("container %q adds the capability %q, which gives a compromised container power over the node or its network: remove it unless the container's job needs it", c.Name, n)))
			}
		}
		return out
	}),
}
