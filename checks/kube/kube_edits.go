package kube

import (
	"slices"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
	corev1 "k8s.io/api/core/v1"
)

// containerAfter is where a person puts a container's resources block.
var containerAfter = []string{"name", "image", "imagePullPolicy", "command", "args", "workingDir", "ports", "envFrom", "env"}

// Set is a Set op at the full path whose After hints fit the first key
// of the path that does not exist yet (the one the edit inserts).
func Set(obj *manifest.Object, p manifest.Path, value, comment string) edit.Op {
	op := checks.SetOp(p, value, afterFor(obj, p)...)
	op.Comment = comment
	return op
}

// Append is an Append op with After hints for a sequence it may create.
func Append(obj *manifest.Object, p manifest.Path, value string) edit.Op {
	op := checks.AppendOp(p, value)
	op.After = afterFor(obj, p)
	return op
}

// afterFor picks sibling hints for the first missing key of p.
func afterFor(obj *manifest.Object, p manifest.Path) []string {
	for i := 1; i <= len(p); i++ {
		if obj.Has(p[:i]...) {
			continue
		}
		parent := ""
		if i >= 2 {
			parent = p[i-2]
		}
		return afterHints(parent, p[i-1])
	}
	return nil
}

// afterHints returns where a person puts key under parent: the sibling
// keys it goes after. The slices are shared by every finding that uses
// them (thousands on a large repository): edits only read them.
func afterHints(parent, key string) []string {
	inContainer := parent != "" && parent[0] >= '0' && parent[0] <= '9'
	switch {
	case inContainer && key == "resources":
		return containerAfter
	case inContainer && key == "securityContext":
		return containerSecurityContextAfter
	case inContainer && key == "volumeMounts":
		return containerVolumeMountsAfter
	case key == "limits":
		return limitsAfter
	case parent == "spec" && key == "securityContext":
		return podSecurityContextAfter
	case parent == "spec" && key == "automountServiceAccountToken":
		return automountAfter
	case parent == "spec" && key == "volumes":
		return volumesAfter
	case parent == "metadata" && key == "labels":
		return labelsAfter
	}
	return nil
}

// keys returns the resource names of a list.
func keys(l corev1.ResourceList) map[string]bool {
	out := make(map[string]bool, len(l))
	for n := range l {
		out[string(n)] = true
	}
	return out
}

// The After hints of afterHints besides containerAfter.
var (
	containerSecurityContextAfter = slices.Concat(containerAfter, []string{"resources", "volumeMounts", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle"})
	containerVolumeMountsAfter    = slices.Concat(containerAfter, []string{"resources"})
	limitsAfter                   = []string{"requests"}
	podSecurityContextAfter       = []string{"serviceAccountName", "serviceAccount", "automountServiceAccountToken", "priorityClassName", "hostNetwork", "hostPID", "hostIPC", "dnsPolicy", "restartPolicy", "terminationGracePeriodSeconds"}
	automountAfter                = []string{"serviceAccountName", "serviceAccount"}
	volumesAfter                  = []string{"initContainers", "containers"}
	labelsAfter                   = []string{"name", "namespace"}
)
