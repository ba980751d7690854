package checks

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// secSafeSysctls are the sysctls the kubelet allows by default (the Pod
// Security Standards' baseline list); any other is unsafe.
var secSafeSysctls = map[string]bool{
	"kernel.shm_rmid_forced":              true,
	"net.ipv4.ip_local_port_range":        true,
	"net.ipv4.ip_unprivileged_port_start": true,
	"net.ipv4.tcp_syncookies":             true,
	"net.ipv4.ping_group_range":           true,
	"net.ipv4.ip_local_reserved_ports":    true,
	"net.ipv4.tcp_keepalive_time":         true,
	"net.ipv4.tcp_fin_timeout":            true,
	"net.ipv4.tcp_keepalive_intvl":        true,
	"net.ipv4.tcp_keepalive_probes":       true,
	"net.ipv4.tcp_rmem":                   true,
	"net.ipv4.tcp_wmem":                   true,
}

var unsafeSysctlsProcmount = &Rule{
	ID:       "unsafe-sysctls-procmount",
	Section:  sectionSecurity,
	Severity: Warning,
	Why:      "unsafe sysctls change kernel settings shared with the node's other pods, and procMount: Unmasked exposes the host's /proc paths",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := secPodTemplate(ctx, obj)
		if pt == nil {
			return nil
		}
		var out []Finding
		for i, s := range secPodCtx(pt).Sysctls {
			if secSafeSysctls[s.Name] {
				continue
			}
			p := pt.SpecPath.Child("securityContext", "sysctls", manifest.Index(i), "name")
			out = append(out, At(obj, p, fmt.Sprintf("the pod sets the unsafe sysctl %s: it affects other pods on the node and the kubelet rejects the pod unless allowed; set it on dedicated nodes or with a node-level tool instead", s.Name)))
		}
		for _, c := range pt.AllContainers() {
			if pm := secCtx(c).ProcMount; pm != nil && *pm == corev1.UnmaskedProcMount {
				p := c.Path.Child("securityContext", "procMount")
				out = append(out, At(obj, p, fmt.Sprintf("container %q sets procMount: Unmasked, which exposes the host's masked /proc paths: use Default", c.Name)))
			}
		}
		return out
	},
}
