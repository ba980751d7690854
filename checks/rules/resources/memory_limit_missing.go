package resources

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var memoryLimitMissing = &checks.Rule{
	ID:       "memory-limit-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/configure-pod-container/assign-memory-resource/#if-you-do-not-specify-a-memory-limit",
	Why:      "a container with a memory request but no limit can use all of the node's memory; memory is not compressible, so the node OOM-kills something else",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, c := range ownResources(ctx, obj, corev1.ResourceMemory, true) {
			req, hasReq := amount(c.Resources.Requests, corev1.ResourceMemory)
			_, hasLim := amount(c.Resources.Limits, corev1.ResourceMemory)
			if !hasReq || hasLim {
				continue
			}
			res := c.Path.Child("resources")
			val := qtyText(obj, res.Child("requests", "memory"), req)
			f := checks.At(obj, res.Child("limits", "memory"), fmt.Sprintf("container %q requests %s of memory but sets no memory limit: set the limit equal to the request", c.Name, val))
			out = append(out, f.WithFix("set the memory limit equal to the request ("+val+")",
				kube.Set(obj, res.Child("limits", "memory"), val, "")))
		}
		return out
	},
}
