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
		if img, ok := rootImage(c.Image); ok {
			f := checks.At(obj, at, msg+"; "+img.note)
			if img.uid > 0 {
				f = f.WithFix(fmt.Sprintf("run it as UID/GID %d, the user its entrypoint switches to, with fsGroup %d so its volumes stay writable (a starting point: check the image's tag)", img.uid, img.uid), rootImageFix(obj, pt, c, img.uid)...)
			}
			out = append(out, f)
			continue
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

// knownRootImage is a stock image known to start as root, and what running
// it as non-root takes.
type knownRootImage struct {
	// uid is the user its entrypoint switches to once it has set up its
	// data directory (0: it needs root to start, so no fix is offered).
	uid  int64
	note string
}

// rootImages are stock images that start as root. Databases' entrypoints
// take ownership of their data directory as root, then run as a fixed
// user: running as that user from the start works when the volume is
// writable to it (fsGroup). Web servers bind port 80 and write their cache
// and pid files as root: a non-root UID breaks them, so they get no fix.
var rootImages = map[string]knownRootImage{
	"nginx":    {0, "the stock nginx image starts as root (it binds port 80 and writes /var/cache/nginx and its pid file), so setting a non-root user breaks it: run nginxinc/nginx-unprivileged (UID 101, port 8080) or an image built for a non-root user, then set runAsNonRoot: true"},
	"httpd":    {0, "the stock httpd image starts as root (it binds port 80, then drops to daemon), so setting a non-root user breaks it: listen on a port above 1024 in an image built for a non-root user, then set runAsNonRoot: true"},
	"kong":     {0, "the kong image needs its prefix directory writable and ports below 1024 only as root: set KONG_PREFIX to a mounted emptyDir and listen above 1024 before setting runAsNonRoot: true with the kong user (UID 1000)"},
	"mongo":    {999, "the mongo image's entrypoint starts as root to take ownership of /data/db, then runs mongod as UID 999"},
	"mysql":    {999, "the mysql image's entrypoint starts as root to take ownership of /var/lib/mysql, then runs mysqld as UID 999"},
	"mariadb":  {999, "the mariadb image's entrypoint starts as root to take ownership of /var/lib/mysql, then runs as UID 999"},
	"postgres": {999, "the postgres image's entrypoint starts as root to take ownership of PGDATA, then runs postgres as UID 999 (70 in the alpine variants)"},
	"redis":    {999, "the redis image's entrypoint starts as root to take ownership of /data, then runs redis-server as UID 999"},
	"rabbitmq": {999, "the rabbitmq image's entrypoint starts as root to take ownership of /var/lib/rabbitmq, then runs as UID 999"},
}

// rootImage returns what is known of a stock image that starts as root:
// one whose name (the last path component) is a key of rootImages, from
// Docker Hub's library or under the same name elsewhere.
func rootImage(image string) (knownRootImage, bool) {
	img, ok := rootImages[kube.ImageBase(image)]
	return img, ok
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
