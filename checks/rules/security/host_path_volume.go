package security

import (
	"fmt"
	"path"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

// hostPathCritical are host paths that give a container the node when it
// can write them: the root, /etc, the kubelet's directory, and the
// container runtime sockets (connecting to one runs containers on the
// node). Mounting one writable is an error.
var hostPathCritical = map[string]bool{
	"/": true, "/etc": true, "/var/lib/kubelet": true,
	"/var/run/docker.sock": true, "/run/docker.sock": true,
	"/run/containerd/containerd.sock": true, "/var/run/containerd/containerd.sock": true,
	"/run/crio/crio.sock": true, "/var/run/crio/crio.sock": true,
}

var hostPathVolume = &checks.Rule{
	ID:       "host-path-volume",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/storage/volumes/#hostpath",
	Why:      "a hostPath volume exposes the node's files to the container; the root, /etc, the kubelet's directory or a container runtime socket, mounted writable, hand it the node",
	Help:     "An error only for a writable mount of the root, /etc, /var/lib/kubelet or a container runtime socket, which gives the container control of the node. Other host paths, and those mounted read-only, are a warning; read-only mounts in a DaemonSet (a node agent reading what its job needs) are info, and so is a hostPath volume no container mounts.",
	Check: kube.OnWholePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for i, v := range pt.Spec.Volumes {
			if v.HostPath == nil {
				continue
			}
			p := pt.SpecPath.Child("volumes", manifest.Index(i), "hostPath", "path")
			hp := path.Clean(v.HostPath.Path)
			mounted, writable := hostMounts(pt, v.Name)
			switch {
			case !mounted:
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q names the host path %q but no container mounts it (the kubelet still sets it up, creating it when its type says so): remove it if nothing needs it", v.Name, hp)).WithSeverity(checks.Info))
			case hostPathCritical[hp] && writable:
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %q writable, which gives the container control of the node: remove it, or mount only the paths it needs with readOnly: true", v.Name, hp)).WithSeverity(checks.Error))
			case !writable && obj.Kind == "DaemonSet":
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %q read-only in a DaemonSet, as node agents do to read what their job needs: make sure it needs all of it", v.Name, hp)).WithSeverity(checks.Info))
			case !writable:
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %q read-only: the container cannot change the node's files there but can read them; use a ConfigMap or projected volume unless it is a node agent that needs them", v.Name, hp)))
			default:
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %q: use a PersistentVolumeClaim, emptyDir, ConfigMap or projected volume unless the pod is a node agent that needs it", v.Name, v.HostPath.Path)))
			}
		}
		return out
	}),
}

// hostMounts reports whether any container of pt mounts the volume name,
// and whether one mounts it without readOnly: true.
func hostMounts(pt *manifest.PodTemplate, name string) (mounted, writable bool) {
	for _, c := range pt.AllContainers() {
		for _, m := range c.VolumeMounts {
			if m.Name == name {
				mounted = true
				writable = writable || !m.ReadOnly
			}
		}
	}
	return mounted, writable
}
