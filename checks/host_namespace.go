package checks

import (
	"fmt"

	"github.com/prodready/prodready/checks/manifest"
)

var hostNamespace = &Rule{
	ID:       "host-namespace",
	Section:  sectionSecurity,
	Severity: Warning,
	Why:      "a pod in the host's network, PID or IPC namespace sees and can reach the node's traffic, processes and shared memory",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil || secStaticControlPlane(obj) {
			return nil
		}
		return secHostNamespaceFindings(obj, pt)
	},
}

func secHostNamespaceFindings(obj *manifest.Object, pt *manifest.PodTemplate) []Finding {
	var out []Finding
	for _, h := range []struct {
		key, what string
		on        bool
	}{
		{"hostNetwork", "network (it sees all of the node's traffic and binds its ports)", pt.Spec.HostNetwork},
		{"hostPID", "PID namespace (it sees and can signal every process on the node)", pt.Spec.HostPID},
		{"hostIPC", "IPC namespace (it shares memory with the node's processes)", pt.Spec.HostIPC},
	} {
		if h.on {
			out = append(out, At(obj, pt.SpecPath.Child(h.key), fmt.Sprintf("%s: true puts the pod in the host's %s; remove it unless the pod is a node agent that needs it", h.key, h.what)))
		}
	}
	return out
}
