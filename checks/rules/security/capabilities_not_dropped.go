package security

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var capabilitiesNotDropped = &checks.Rule{
	ID:       "capabilities-not-dropped",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted",
	Why:      "a container keeps the runtime's default capabilities (NET_RAW, CHOWN, SETUID, …) unless it drops ALL and adds back only what it needs",
	Check: linuxPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		// run-as-root's fix makes every container non-root (runAsNonRoot
		// with a numeric user); when it is on, drop ALL comes with it, so
		// both suggestions arrive in one review instead of one per push.
		withRunAsRoot := ctx.Config.Enabled(runAsRoot) && !checks.ObjectIgnores(obj, runAsRoot.ID)
		return capsDropFindings(ctx, obj, pt, withRunAsRoot, false)
	}),
}

// capsDropFindings reports containers that do not drop ALL. assumeNonRoot
// treats every container as non-root (when a run-as-root fix is applied
// together with this one); assumeUnprivileged likewise for privileged: false.
func capsDropFindings(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate, assumeNonRoot, assumeUnprivileged bool) []checks.Finding {
	var out []checks.Finding
	for _, c := range pt.AllContainers() {
		if patched(ctx, obj, c) {
			continue // an overlay's patch sets its security context
		}
		caps := containerSecurityContext(c).Capabilities
		dropsAll := false
		if caps != nil {
			for _, d := range caps.Drop {
				dropsAll = dropsAll || capName(d) == "ALL"
			}
		}
		if dropsAll {
			continue
		}
		p := c.Path.Child("securityContext", "capabilities", "drop")
		msg := fmt.Sprintf("container %q does not drop ALL capabilities", c.Name)
		facts, _ := kube.Facts(ctx, obj, c)
		// run-as-root's fix makes the container non-root only where it
		// has one: not for an image that must start as root.
		nonRoot := runsAsNonRoot(pt, c) || (assumeNonRoot && keepsRoot(ctx, obj, c) == "")
		switch {
		case privileged(c) && !assumeUnprivileged:
			out = append(out, checks.At(obj, p, msg+"; it is privileged, which grants every capability anyway: drop privileged first, then drop ALL and add back only what it needs"))
		case len(facts.Caps) > 0:
			// The image is known to need these (nginx: CHOWN, SETUID,
			// SETGID, NET_BIND_SERVICE): drop the rest.
			ops := []edit.Op{kube.Append(obj, p, "ALL")}
			var back []string
			for _, name := range facts.Caps {
				if !addsCap(c, name) {
					back = append(back, name)
					ops = append(ops, kube.Append(obj, c.Path.Child("securityContext", "capabilities", "add"), name))
				}
			}
			desc := fmt.Sprintf("drop ALL capabilities and add back %s, which the %s image needs", strings.Join(back, ", "), facts.Family)
			if len(back) == 0 {
				desc = fmt.Sprintf("drop ALL capabilities (it adds back %s, which the %s image needs)", strings.Join(facts.Caps, ", "), facts.Family)
			}
			out = append(out, checks.At(obj, p, fmt.Sprintf("%s: the %s image needs %s, so drop ALL and add those back", msg, facts.Family, strings.Join(facts.Caps, ", "))).
				WithFix(desc, ops...))
		case !nonRoot:
			out = append(out, checks.At(obj, p, msg+"; it may run as root, and root entrypoints that chown files or switch user break without CHOWN/SETUID/SETGID: make it run as non-root first, or drop ALL and add back the capabilities it needs"))
		default:
			out = append(out, checks.At(obj, p, msg+": drop ALL and add back only the capabilities it needs").
				WithFix("drop ALL capabilities", kube.Append(obj, p, "ALL")))
		}
	}
	return out
}
