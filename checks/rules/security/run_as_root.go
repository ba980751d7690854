package security

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var runAsRoot = &checks.Rule{
	ID:       "run-as-root",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted",
	Why:      "a container that may run as root (UID or GID 0) turns any escape or file-system write into root on the node's files",
	Check:    linuxPods(runAsRootFindings),
}

func runAsRootFindings(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
	var out []checks.Finding
	for _, c := range pt.AllContainers() {
		if patched(ctx, obj, c) {
			continue // an overlay's patch sets its security context
		}
		user, group, nonRoot := runAsUser(pt, c), runAsGroup(pt, c), runAsNonRoot(pt, c)
		var at manifest.Path
		var msg string
		switch {
		case user.val != nil && *user.val == 0:
			at, msg = user.path, fmt.Sprintf("container %q runs as root (runAsUser: 0)", c.Name)
		case group.val != nil && *group.val == 0:
			at, msg = group.path, fmt.Sprintf("container %q runs with the root group (runAsGroup: 0)", c.Name)
		case runsAsNonRoot(pt, c):
			continue
		case nonRoot.val != nil:
			at, msg = nonRoot.path, fmt.Sprintf("container %q sets runAsNonRoot: false and no non-root runAsUser, so it runs as root when the image's user is root", c.Name)
		default:
			at, msg = c.Path.Child("securityContext", "runAsNonRoot"), fmt.Sprintf("container %q may run as root: neither it nor the pod sets runAsNonRoot: true or a non-zero runAsUser", c.Name)
		}
		out = append(out, checks.At(obj, at, msg+"; set runAsNonRoot: true with the numeric UID/GID the image runs as").
			WithFix(fmt.Sprintf("set runAsNonRoot: true with runAsUser/runAsGroup (%d is a starting point: use the UID/GID the image runs as)", placeholderID), runAsRootFix(obj, pt, c)...))
	}
	return out
}

// runAsRootFix sets runAsNonRoot: true on the container and numeric
// runAsUser/runAsGroup where the effective ones are unset or 0 (an image
// whose USER is a name fails runAsNonRoot without a numeric UID).
func runAsRootFix(obj *manifest.Object, pt *manifest.PodTemplate, c manifest.Container) []edit.Op {
	sc := c.Path.Child("securityContext")
	user, group := runAsUser(pt, c), runAsGroup(pt, c)
	comment := "starting point: the UID/GID the image runs as"
	ops := []edit.Op{kube.Set(obj, sc.Child("runAsNonRoot"), "true", "")}
	uid := int64(placeholderID)
	if user.val == nil || *user.val == 0 {
		ops = append(ops, kube.Set(obj, sc.Child("runAsUser"), itoa(uid), comment))
	} else {
		uid = *user.val
	}
	if group.val == nil || *group.val == 0 {
		ops = append(ops, kube.Set(obj, sc.Child("runAsGroup"), itoa(uid), comment))
	}
	return ops
}
