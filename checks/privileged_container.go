package checks

import (
	"fmt"

	"github.com/prodready/prodready/checks/manifest"
)

var privilegedContainer = &Rule{
	ID:       "privileged-container",
	Section:  sectionSecurity,
	Severity: Warning,
	Why:      "a privileged container has every capability and all host devices: a breakout is one step away",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil {
			return nil
		}
		return secPrivilegedFindings(ctx, obj, pt)
	},
}

func secPrivilegedFindings(ctx *Context, obj *manifest.Object, pt *manifest.PodTemplate) []Finding {
	device := secDeviceResource(pt)
	var out []Finding
	for _, c := range pt.AllContainers() {
		if secPatched(ctx, obj, c) {
			continue // an overlay's patch sets its security context
		}
		if !secPrivileged(c) {
			continue
		}
		p := c.Path.Child("securityContext", "privileged")
		msg := fmt.Sprintf("container %q is privileged: it has every capability and all host devices; add only the capabilities it needs instead", c.Name)
		f := At(obj, p, msg)
		if device != "" {
			f = At(obj, p, fmt.Sprintf("container %q is privileged and the pod requests the device resource %s: a device plugin usually makes privileged unnecessary; remove it if the device works without", c.Name, device)).WithSeverity(Info)
		}
		out = append(out, f.WithFix("set privileged: false", SetOp(p, "false")))
	}
	return out
}
