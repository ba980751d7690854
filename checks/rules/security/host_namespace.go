package security

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var hostNamespace = &checks.Rule{
	ID:       "host-namespace",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline",
	Why:      "a pod in the host's network, PID or IPC namespace sees and can reach the node's traffic, processes and shared memory",
	Check: appPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, h := range []struct {
			key, what string
			on        bool
		}{
			{"hostNetwork", "network (it sees all of the node's traffic and binds its ports)", pt.Spec.HostNetwork},
			{"hostPID", "PID namespace (it sees and can signal every process on the node)", pt.Spec.HostPID},
			{"hostIPC", "IPC namespace (it shares memory with the node's processes)", pt.Spec.HostIPC},
		} {
			if h.on {
				out = append(out, checks.At(obj, pt.SpecPath.Child(h.key), fmt.Sprintf("%s: true puts the pod in the host's %s; remove it unless the pod is a node agent that needs it", h.key, h.what)))
			}
		}
		return out
	}),
}
