package checks

import (
	"fmt"

	"github.com/prodready/prodready/checks/manifest"
)

var privilegeEscalationAllowed = &Rule{
	ID:       "privilege-escalation-allowed",
	Section:  sectionSecurity,
	Severity: Warning,
	Why:      "unless allowPrivilegeEscalation is false, a process can gain more privileges than its parent (setuid binaries, file capabilities)",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil || secWindows(pt) {
			return nil
		}
		return secEscalationFindings(ctx, obj, pt, false)
	},
}

// secEscalationFindings reports containers that allow privilege escalation.
// assumeUnprivileged treats privileged containers as fixed (when a
// privileged: false fix is applied together with this one).
func secEscalationFindings(ctx *Context, obj *manifest.Object, pt *manifest.PodTemplate, assumeUnprivileged bool) []Finding {
	var out []Finding
	for _, c := range pt.AllContainers() {
		if secPatched(ctx, obj, c) {
			continue // an overlay's patch sets its security context
		}
		ape := secCtx(c).AllowPrivilegeEscalation
		if ape != nil && !*ape {
			continue
		}
		p := c.Path.Child("securityContext", "allowPrivilegeEscalation")
		msg := fmt.Sprintf("container %q does not set allowPrivilegeEscalation: false", c.Name)
		if ape != nil {
			msg = fmt.Sprintf("container %q sets allowPrivilegeEscalation: true", c.Name)
		}
		switch {
		case secPrivileged(c) && !assumeUnprivileged:
			out = append(out, At(obj, p, msg+"; it is also privileged, and the API server rejects allowPrivilegeEscalation: false beside privileged: true, so drop privileged first"))
		case secAddsCap(c, "SYS_ADMIN"):
			out = append(out, At(obj, p, msg+"; it also adds SYS_ADMIN, and the API server rejects allowPrivilegeEscalation: false beside it, so remove SYS_ADMIN first"))
		default:
			out = append(out, At(obj, p, msg+": set it so processes cannot gain privileges (setuid binaries, file capabilities)").
				WithFix("set allowPrivilegeEscalation: false", resSet(obj, p, "false", "")))
		}
	}
	return out
}
