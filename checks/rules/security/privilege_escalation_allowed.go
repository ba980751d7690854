package security

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var privilegeEscalationAllowed = &checks.Rule{
	ID:       "privilege-escalation-allowed",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted",
	Why:      "unless allowPrivilegeEscalation is false, a process can gain more privileges than its parent (setuid binaries, file capabilities)",
	Check: linuxPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		return escalationFindings(ctx, obj, pt, false)
	}),
}

// escalationFindings reports containers that allow privilege escalation.
// assumeUnprivileged treats privileged containers as fixed (when a
// privileged: false fix is applied together with this one).
func escalationFindings(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate, assumeUnprivileged bool) []checks.Finding {
	var out []checks.Finding
	for _, c := range pt.AllContainers() {
		if patched(ctx, obj, c) {
			continue // an overlay's patch sets its security context
		}
		ape := containerSecurityContext(c).AllowPrivilegeEscalation
		if ape != nil && !*ape {
			continue
		}
		p := c.Path.Child("securityContext", "allowPrivilegeEscalation")
		msg := fmt.Sprintf("container %q does not set allowPrivilegeEscalation: false", c.Name)
		if ape != nil {
			msg = fmt.Sprintf("container %q sets allowPrivilegeEscalation: true", c.Name)
		}
		switch {
		case privileged(c) && !assumeUnprivileged:
			out = append(out, checks.At(obj, p, msg+"; it is also privileged, and the API server rejects allowPrivilegeEscalation: false beside privileged: true, so drop privileged first"))
		case addsCap(c, "SYS_ADMIN"):
			out = append(out, checks.At(obj, p, msg+"; it also adds SYS_ADMIN, and the API server rejects allowPrivilegeEscalation: false beside it, so remove SYS_ADMIN first"))
		default:
			out = append(out, checks.At(obj, p, msg+": set it so processes cannot gain privileges (setuid binaries, file capabilities)").
				WithFix("set allowPrivilegeEscalation: false", kube.Set(obj, p, "false", "")))
		}
	}
	return out
}
