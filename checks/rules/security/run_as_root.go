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
		if need := keepsRoot(ctx, obj, c); need != "" {
			out = append(out, checks.At(obj, at, msg+"; "+need))
			continue
		}
		if f, ok := kube.Facts(ctx, obj, c); ok && f.User > 0 && !f.ByEnv {
			note := fmt.Sprintf("the %s image runs as UID %d", f.Family, f.User)
			out = append(out, checks.At(obj, at, msg+"; "+note).
				WithFix(fmt.Sprintf("run it as UID/GID %d, the user the %s image runs as, with fsGroup %d so its volumes stay writable (a starting point: check the image's tag)", f.User, f.Family, f.User), rootImageFix(obj, pt, c, f.User)...))
			continue
		}
		f := checks.At(obj, at, msg+"; set runAsNonRoot: true with the numeric UID/GID the image runs as")
		desc := fmt.Sprintf("set runAsNonRoot: true with runAsUser/runAsGroup (%d is a starting point: use the UID/GID the image runs as)", placeholderID)
		if why := genericUIDBreaks(ctx, obj, c, user, group); why != "" {
			f = f.WithFix(desc)
			f.Fix.Withheld = why
			out = append(out, f)
			continue
		}
		ops := runAsRootFix(obj, pt, c)
		if psc := podSecurityContext(pt); writesVolumes(ctx, obj, c) && (psc == nil || psc.FSGroup == nil) {
			desc += fmt.Sprintf(", and fsGroup %d so the volumes its image writes stay writable", placeholderID)
			ops = append(ops, kube.Set(obj, pt.SpecPath.Child("securityContext", "fsGroup"), itoa(placeholderID), "starting point: the group that owns the image's data volumes"))
		}
		out = append(out, f.WithFix(desc, ops...))
	}
	return out
}

// genericUIDBreaks says why the generic UID fix is withheld from
// container c ("" when nothing says so): its pod or container asks for
// root explicitly (runAsUser or runAsGroup 0, a choice made on purpose,
// as longhorn's driver deployer does), or the image facts say its image
// runs as root and writes directories a generic UID cannot write (a root
// image's data folder, as heapster-influxdb's /var/lib/influxdb).
func genericUIDBreaks(ctx *checks.Context, obj *manifest.Object, c manifest.Container, user, group setting[int64]) string {
	switch {
	case user.val != nil && *user.val == 0:
		return "runAsUser: 0 asks for root explicitly, a choice made on purpose that a generic UID would override: find out what it needs root for, then run it as the UID its image runs as"
	case group.val != nil && *group.val == 0:
		return "runAsGroup: 0 asks for the root group explicitly, a choice made on purpose that a generic GID would override: find out what it needs it for, then run it as the UID/GID its image runs as"
	}
	if f, ok := kube.Facts(ctx, obj, c); ok && f.User == 0 {
		if dirs := kube.Unmounted(c, f.Writes); len(dirs) > 0 {
			return fmt.Sprintf("the %s image runs as root and writes %s, owned by root in the image and not a mounted volume, which a generic UID cannot write: mount a volume at each (the fix then sets fsGroup so it is writable) or run an image built for a non-root user", f.Family, quoteList(dirs))
		}
	}
	return ""
}

// writesVolumes reports whether the image facts say container c's image
// runs as root and writes directories (all of them mounted volumes, else
// genericUIDBreaks withholds the fix): the generic UID then needs the
// pod's fsGroup to write them.
func writesVolumes(ctx *checks.Context, obj *manifest.Object, c manifest.Container) bool {
	f, ok := kube.Facts(ctx, obj, c)
	return ok && f.User == 0 && len(f.Writes) > 0
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

// keepsRoot says why no rule's fix may make container c non-root ("" when
// nothing says so): its image must start as root (the image facts), it is
// a server recognised by its variables in an image whose user is not
// known, or it is privileged (a node agent's mode, whose work on the
// node's files and devices needs root).
func keepsRoot(ctx *checks.Context, obj *manifest.Object, c manifest.Container) string {
	f, ok := kube.Facts(ctx, obj, c)
	if ok && f.RootOnly != "" {
		return f.RootOnly
	}
	if ok && f.ByEnv && f.User > 0 {
		return fmt.Sprintf("its variables make it a %s server in an image of its own, which runs as that image's own user (UID %d in the stock %s image, other builds differ), so a generic UID would leave it unable to write its data: set runAsNonRoot: true with the UID its image's %s user has", f.Family, f.User, f.Family, f.Family)
	}
	if privileged(c) {
		return "it is privileged, a node agent's mode that comes with root's work on the node (devices, mounts, the host's files): a generic UID would break it; check what it does as root before making it non-root"
	}
	return ""
}

// rootImageFix runs container c as uid (the user the image's entrypoint
// switches to) from the start, with the pod's fsGroup so its volumes are
// writable to it.
func rootImageFix(obj *manifest.Object, pt *manifest.PodTemplate, c manifest.Container, uid int64) []edit.Op {
	sc := c.Path.Child("securityContext")
	comment := "starting point: the user the image's entrypoint switches to"
	ops := []edit.Op{
		kube.Set(obj, sc.Child("runAsNonRoot"), "true", ""),
		kube.Set(obj, sc.Child("runAsUser"), itoa(uid), comment),
		kube.Set(obj, sc.Child("runAsGroup"), itoa(uid), comment),
	}
	if psc := podSecurityContext(pt); psc == nil || psc.FSGroup == nil {
		ops = append(ops, kube.Set(obj, pt.SpecPath.Child("securityContext", "fsGroup"), itoa(uid), comment))
	}
	return ops
}
