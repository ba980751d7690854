package resources

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

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
			if floor, family := kube.MemoryFloor(ctx, obj, c); floor != "" && floorAbove(floor, req) {
				// A limit at a small request would OOM-kill it: the limit
				// is the least the image works with.
				f.Message = fmt.Sprintf("container %q requests %s of memory but sets no memory limit: set a limit, at least %s, the least the %s image works with", c.Name, val, floor, family)
				out = append(out, f.WithFix(fmt.Sprintf("set the memory limit to %s, the least the %s image works with (a starting point: measure the app's real usage)", floor, family),
					kube.Set(obj, res.Child("limits", "memory"), floor, "starting point: set from the app's measured usage")))
				continue
			}
			out = append(out, f.WithFix("set the memory limit equal to the request ("+val+")",
				kube.Set(obj, res.Child("limits", "memory"), val, "")))
		}
		return out
	},
}

// floorAbove reports whether the quantity floor is more than req.
func floorAbove(floor string, req resource.Quantity) bool {
	q, err := resource.ParseQuantity(floor)
	return err == nil && q.Cmp(req) > 0
}
