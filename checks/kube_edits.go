package checks

import (
	"slices"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
	corev1 "k8s.io/api/core/v1"
)

// resContainerAfter is where a person puts a container's resources block.
var resContainerAfter = []string{"name", "image", "imagePullPolicy", "command", "args", "workingDir", "ports", "envFrom", "env"}

// resSet is a Set op at the full path whose After hints fit the first key
// of the path that does not exist yet (the one the edit inserts).
func resSet(obj *manifest.Object, p manifest.Path, value, comment string) edit.Op {
	op := SetOp(p, value, resAfterFor(obj, p)...)
	op.Comment = comment
	return op
}

// resAppend is an Append op with After hints for a sequence it may create.
func resAppend(obj *manifest.Object, p manifest.Path, value string) edit.Op {
	op := AppendOp(p, value)
	op.After = resAfterFor(obj, p)
	return op
}

// resAfterFor picks sibling hints for the first missing key of p.
func resAfterFor(obj *manifest.Object, p manifest.Path) []string {
	for i := 1; i <= len(p); i++ {
		if obj.Has(p[:i]...) {
			continue
		}
		parent := ""
		if i >= 2 {
			parent = p[i-2]
		}
		return resAfterHints(parent, p[i-1])
	}
	return nil
}

// resAfterHints returns where a person puts key under parent: the sibling
// keys it goes after. The slices are shared by every finding that uses
// them (thousands on a large repository): edits only read them.
func resAfterHints(parent, key string) []string {
	inContainer := parent != "" && parent[0] >= '0' && parent[0] <= '9'
	switch {
	case inContainer && key == "resources":
		return resContainerAfter
	case inContainer && key == "securityContext":
		return resContainerSecurityContextAfter
	case inContainer && key == "volumeMounts":
		return resContainerVolumeMountsAfter
	case key == "limits":
		return resLimitsAfter
	case parent == "spec" && key == "securityContext":
		return resPodSecurityContextAfter
	case parent == "spec" && key == "automountServiceAccountToken":
		return resAutomountAfter
	case parent == "spec" && key == "volumes":
		return resVolumesAfter
	case parent == "metadata" && key == "labels":
		return resLabelsAfter
	}
	return nil
}

// secKeys returns the resource names of a list.
func secKeys(l corev1.ResourceList) map[string]bool {
	out := make(map[string]bool, len(l))
	for n := range l {
		out[string(n)] = true
	}
	return out
}

// The After hints of resAfterHints besides resContainerAfter.
var (
	resContainerSecurityContextAfter = slices.Concat(resContainerAfter, []string{"resources", "volumeMounts", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle"})
	resContainerVolumeMountsAfter    = slices.Concat(resContainerAfter, []string{"resources"})
	resLimitsAfter                   = []string{"requests"}
	resPodSecurityContextAfter       = []string{"serviceAccountName", "serviceAccount", "automountServiceAccountToken", "priorityClassName", "hostNetwork", "hostPID", "hostIPC", "dnsPolicy", "restartPolicy", "terminationGracePeriodSeconds"}
	resAutomountAfter                = []string{"serviceAccountName", "serviceAccount"}
	resVolumesAfter                  = []string{"initContainers", "containers"}
	resLabelsAfter                   = []string{"name", "namespace"}
)
