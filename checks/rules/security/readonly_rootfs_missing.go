package security

import (
	"fmt"
	"path"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var readonlyRootfsMissing = &checks.Rule{
	ID:       "readonly-rootfs-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://learnk8s.io/production-best-practices#governance",
	Why:      "a writable root filesystem lets an attacker (or a bug) change the container's binaries and config; write only to mounted volumes",
	Check: linuxPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.AllContainers() {
			if patched(ctx, obj, c) {
				continue // an overlay's patch sets its security context
			}
			ro := containerSecurityContext(c).ReadOnlyRootFilesystem
			if ro != nil && *ro {
				continue
			}
			p := c.Path.Child("securityContext", "readOnlyRootFilesystem")
			if family, dirs := kube.Writer(ctx, obj, c); family != "" {
				if len(dirs) == 0 {
					out = append(out, checks.At(obj, p, fmt.Sprintf("container %q does not set readOnlyRootFilesystem: true; %s images write outside /tmp (cache, run and data directories), so set it together with emptyDir or persistent volumes at each path the image writes", c.Name, family)))
					continue
				}
				if missing := kube.Unmounted(c, dirs); len(missing) > 0 {
					out = append(out, checks.At(obj, p, fmt.Sprintf("container %q does not set readOnlyRootFilesystem: true; the %s image writes %s, which no writable volume of it covers, so set it together with emptyDir or persistent volumes at each of those paths (and /tmp)", c.Name, family, quoteList(missing))))
					continue
				}
			}
			ops := []edit.Op{kube.Set(obj, p, "true", "")}
			desc := "set readOnlyRootFilesystem: true"
			if !mountsAt(c, "/tmp") {
				name, exists := tmpVolumeName(pt, c)
				ops = append(ops, kube.Append(obj, c.Path.Child("volumeMounts"), "name: "+name+"\nmountPath: /tmp\n"))
				if !exists {
					ops = append(ops, kube.Append(obj, pt.SpecPath.Child("volumes"), "name: "+name+"\nemptyDir: {}\n"))
				}
				desc += " and mount an emptyDir volume at /tmp for scratch files"
			}
			out = append(out, checks.At(obj, p, fmt.Sprintf("container %q does not set readOnlyRootFilesystem: true: make the root filesystem read-only and mount a volume where the app writes (an emptyDir at /tmp covers most apps; the fix is a starting point: check that the image writes nowhere else, such as pid files, caches or uploads, and mount those paths too)", c.Name)).
				WithFix(desc, ops...))
		}
		return out
	}),
}

// mountsAt reports whether the container mounts a volume at dir.
func mountsAt(c manifest.Container, dir string) bool {
	for _, m := range c.VolumeMounts {
		if path.Clean(m.MountPath) == dir {
			return true
		}
	}
	return false
}

// tmpVolumeName picks the emptyDir volume a container's /tmp mount uses:
// "tmp" for a pod with one container, "<container>-tmp" otherwise (each
// container's fix stands alone). exists reports that an emptyDir of that
// name is already there to reuse.
func tmpVolumeName(pt *manifest.PodTemplate, c manifest.Container) (name string, exists bool) {
	name = "tmp"
	if len(pt.AllContainers()) > 1 {
		name = c.Name + "-tmp"
		if len(name) > 63 {
			name = name[len(name)-63:]
			for len(name) > 0 && name[0] == '-' {
				name = name[1:]
			}
		}
	}
	for i := 2; ; i++ {
		v := volume(pt, name)
		if v == nil {
			return name, false
		}
		if v.EmptyDir != nil && !volumeMounted(pt, name) {
			return name, true
		}
		name = fmt.Sprintf("%s-%d", name, i)
		if i > 50 {
			return name, false
		}
	}
}

func volumeMounted(pt *manifest.PodTemplate, name string) bool {
	for _, c := range pt.AllContainers() {
		for _, m := range c.VolumeMounts {
			if m.Name == name {
				return true
			}
		}
	}
	return false
}
