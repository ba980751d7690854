package security

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// safeSysctls are the sysctls the kubelet allows by default (the Pod
// Security Standards' baseline list), each with the Kubernetes minor
// version that made it safe; any other is unsafe.
var safeSysctls = map[string]int{
	"kernel.shm_rmid_forced":              0,
	"net.ipv4.ip_local_port_range":        0,
	"net.ipv4.tcp_syncookies":             0,
	"net.ipv4.ping_group_range":           18,
	"net.ipv4.ip_unprivileged_port_start": 22,
	"net.ipv4.ip_local_reserved_ports":    27,
	"net.ipv4.tcp_keepalive_time":         29,
	"net.ipv4.tcp_fin_timeout":            29,
	"net.ipv4.tcp_keepalive_intvl":        29,
	"net.ipv4.tcp_keepalive_probes":       29,
	"net.ipv4.tcp_rmem":                   32,
	"net.ipv4.tcp_wmem":                   32,
}

// safeSysctl reports whether a sysctl (dotted or slashed) is safe on the
// target Kubernetes version.
func safeSysctl(ctx *checks.Context, name string) bool {
	since, ok := safeSysctls[strings.ReplaceAll(name, "/", ".")]
	if !ok {
		return false
	}
	m := ctx.Config.TargetMinor()
	return m == 0 || m >= since
}

var unsafeSysctlsProcmount = &checks.Rule{
	ID:       "unsafe-sysctls-procmount",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/administer-cluster/sysctl-cluster/#safe-and-unsafe-sysctls",
	Why:      "unsafe sysctls change kernel settings shared with the node's other pods, and procMount: Unmasked exposes the host's /proc paths",
	Check: kube.OnWholePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for i, s := range podSecurityContext(pt).Sysctls {
			if safeSysctl(ctx, s.Name) {
				continue
			}
			p := pt.SpecPath.Child("securityContext", "sysctls", manifest.Index(i), "name")
			out = append(out, checks.At(obj, p, fmt.Sprintf("the pod sets the unsafe sysctl %q: it affects other pods on the node and the kubelet rejects the pod unless allowed; set it on dedicated nodes or with a node-level tool instead", s.Name)))
		}
		for _, c := range pt.AllContainers() {
			if pm := containerSecurityContext(c).ProcMount; pm != nil && *pm == corev1.UnmaskedProcMount {
				p := c.Path.Child("securityContext", "procMount")
				out = append(out, checks.At(obj, p, fmt.Sprintf("container %q sets procMount: Unmasked, which exposes the host's masked /proc paths: use Default", c.Name)))
			}
		}
		return out
	}),
}
