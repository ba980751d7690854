package checks

import (
	"fmt"
	"path"

	"github.com/prodready/prodready/checks/manifest"
)

// secHostPathCritical are host paths that give a container the node:
// mounting them is reported as an error.
var secHostPathCritical = map[string]bool{
	"/": true, "/etc": true, "/proc": true, "/var/run/docker.sock": true, "/run/docker.sock": true, "/var/lib/kubelet": true,
}

var hostPathVolume = &Rule{
	ID:       "host-path-volume",
	Section:  sectionSecurity,
	Severity: Warning,
	Why:      "a hostPath volume exposes the node's files to the container; the root, /etc, /proc, the Docker socket and the kubelet's directory hand it the node",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil {
			return nil
		}
		var out []Finding
		for i, v := range pt.Spec.Volumes {
			if v.HostPath == nil {
				continue
			}
			p := pt.SpecPath.Child("volumes", manifest.Index(i), "hostPath", "path")
			hp := path.Clean(v.HostPath.Path)
			if secHostPathCritical[hp] {
				out = append(out, At(obj, p, fmt.Sprintf("volume %q mounts the host path %s, which gives the container control of the node: remove it", v.Name, hp)).WithSeverity(Error))
				continue
			}
			out = append(out, At(obj, p, fmt.Sprintf("volume %q mounts the host path %s: use a PersistentVolumeClaim, emptyDir, ConfigMap or projected volume unless the pod is a node agent that needs it", v.Name, v.HostPath.Path)))
		}
		return out
	},
}
