package security

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var privilegedContainer = &checks.Rule{
	ID:       "privileged-container",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline",
	Why:      "a privileged container has every capability and all host devices: a breakout is one step away",
	Check:    kube.OnWholePods(privilegedFindings),
}

func privilegedFindings(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
	device := kube.DeviceResource(pt)
	var out []checks.Finding
	for _, c := range pt.AllContainers() {
		if patched(ctx, obj, c) {
			continue // an overlay's patch sets its security context
		}
		if !privileged(c) {
			continue
		}
		p := c.Path.Child("securityContext", "privileged")
		msg := fmt.Sprintf("container %q is privileged: it has every capability and all host devices; add only the capabilities it needs instead", c.Name)
		f := checks.At(obj, p, msg)
		if device != "" {
			f = checks.At(obj, p, fmt.Sprintf("container %q is privileged and the pod requests the device resource %q: a device plugin usually makes privileged unnecessary; remove it if the device works without", c.Name, device)).WithSeverity(checks.Info)
		}
		if need := nodeAgentNeed(pt, c); need != "" {
			// Turning privileged off would break it (or be refused): the
			// finding stays, with what to scope down, and no fix.
			f.Message = fmt.Sprintf("container %q is privileged, which a node agent like this one needs as written: %s. Setting privileged: false would break it, so no fix is offered; scope it down instead: grant only the capabilities it uses (capabilities.add), mount only the host paths and devices it needs, and keep it off application nodes", c.Name, need)
			out = append(out, f)
			continue
		}
		out = append(out, f.WithFix("set privileged: false", checks.SetOp(p, "false")))
	}
	return out
}
