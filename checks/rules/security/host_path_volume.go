package security

import (
	"fmt"
	"path"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

// hostPathCritical are host paths that give a container the node when it
// can write them: mounting one writable is reported as an error.
var hostPathCritical = map[string]bool{
	"/": true, "/etc": true, "/proc": true, "/var/lib/kubelet": true, "/root": true, "/boot": true,
}

// hostSockets are container runtime sockets: connecting to one runs
// containers on the node, and a read-only mount still lets a process
// connect, so any mount of one is an error.
var hostSockets = map[string]bool{
	"/var/run/docker.sock": true, "/run/docker.sock": true,
	"/run/containerd/containerd.sock": true, "/var/run/containerd/containerd.sock": true,
	"/run/crio/crio.sock": true, "/var/run/crio/crio.sock": true,
}

var hostPathVolume = &checks.Rule{
	ID:       "host-path-volume",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/storage/volumes/#hostpath",
	Why:      "a hostPath volume exposes the node's files to the container; the root, /etc, /proc, the kubelet's directory (writable) and a container runtime socket hand it the node",
	Help:     "An error only where the mount gives control of the node: a container runtime socket, or the root, /etc, /proc, /root, /boot or /var/lib/kubelet mounted writable. Mounted read-only, those are a warning (the node's secrets can still be read); other host paths are a warning, and info when every mount is read-only or the pod is a DaemonSet's node agent.",
	Check: kube.OnWholePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for i, v := range pt.Spec.Volumes {
			if v.HostPath == nil {
				continue
			}
			p := pt.SpecPath.Child("volumes", manifest.Index(i), "hostPath", "path")
			hp := path.Clean(v.HostPath.Path)
			writable := mountedWritable(pt, v.Name)
			switch {
			case hostSockets[hp]:
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the container runtime socket %s: whoever can connect to it runs containers on the node as root, read-only mount or not; remove it", v.Name, hp)).WithSeverity(checks.Error))
			case hostPathCritical[hp] && writable:
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %s writable, which gives the container control of the node: remove it, or mount only the paths it needs with readOnly: true", v.Name, hp)).WithSeverity(checks.Error))
			case hostPathCritical[hp]:
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %s read-only: the container cannot change the node's files but can read them, secrets included; mount only the paths it needs", v.Name, hp)))
			case !writable:
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %s read-only: the container reads the node's files there but cannot change them; use a ConfigMap or projected volume unless it is a node agent that needs them", v.Name, v.HostPath.Path)).WithSeverity(checks.Info))
			case obj.Kind == "DaemonSet":
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %s writable in a DaemonSet, as node agents do: make sure it needs to write there, and mount it readOnly: true if not", v.Name, v.HostPath.Path)).WithSeverity(checks.Info))
			default:
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %s: use a PersistentVolumeClaim, emptyDir, ConfigMap or projected volume unless the pod is a node agent that needs it", v.Name, v.HostPath.Path)))
			}
		}
		return out
	}),
}

// mountedWritable reports whether any container of pt mounts the volume
// name without readOnly: true (a volume no container mounts is not).
func mountedWritable(pt *manifest.PodTemplate, name string) bool {
	for _, c := range pt.AllContainers() {
		for _, m := range c.VolumeMounts {
			if m.Name == name && !m.ReadOnly {
				return true
			}
		}
	}
	return false
}
