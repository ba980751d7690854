package security

import (
	"fmt"
	"path"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

// hostPathCritical are host paths that give a container the node:
// mounting them is reported as an error.
var hostPathCritical = map[string]bool{
	"/": true, "/etc": true, "/proc": true, "/var/run/docker.sock": true, "/run/docker.sock": true, "/var/lib/kubelet": true,
}

var hostPathVolume = &checks.Rule{
	ID:       "host-path-volume",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/storage/volumes/#hostpath",
	Why:      "a hostPath volume exposes the node's files to the container; the root, /etc, /proc, the Docker socket and the kubelet's directory hand it the node",
	Check: kube.OnWholePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for i, v := range pt.Spec.Volumes {
			if v.HostPath == nil {
				continue
			}
			p := pt.SpecPath.Child("volumes", manifest.Index(i), "hostPath", "path")
			hp := path.Clean(v.HostPath.Path)
			if hostPathCritical[hp] {
				out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %s, which gives the container control of the node: remove it", v.Name, hp)).WithSeverity(checks.Error))
				continue
			}
			out = append(out, checks.At(obj, p, fmt.Sprintf("volume %q mounts the host path %s: use a PersistentVolumeClaim, emptyDir, ConfigMap or projected volume unless the pod is a node agent that needs it", v.Name, v.HostPath.Path)))
		}
		return out
	}),
}
