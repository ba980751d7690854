package checks

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var memoryLimitMissing = &Rule{
	ID:       "memory-limit-missing",
	Section:  sectionResources,
	Severity: Warning,
	Why:      "a container with a memory request but no limit can use all of the node's memory; memory is not compressible, so the node OOM-kills something else",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil || resPodLevel(pt, corev1.ResourceMemory) {
			return nil
		}
		if _, lim := resLimitRangeDefaults(ctx, obj, corev1.ResourceMemory); lim {
			return nil
		}
		var out []Finding
		for _, c := range pt.Containers() {
			if resPatchSets(ctx, obj, c.Name, "resources") {
				continue // an overlay's patch sets them
			}
			req, hasReq := resAmount(c.Resources.Requests, corev1.ResourceMemory)
			_, hasLim := resAmount(c.Resources.Limits, corev1.ResourceMemory)
			if !hasReq || hasLim {
				continue
			}
			res := c.Path.Child("resources")
			val := resQtyText(obj, res.Child("requests", "memory"), req)
			f := At(obj, res.Child("limits", "memory"), fmt.Sprintf("container %q requests %s of memory but sets no memory limit: set the limit equal to the request", c.Name, val))
			out = append(out, f.WithFix("set the memory limit equal to the request ("+val+")",
				resSet(obj, res.Child("limits", "memory"), val, "")))
		}
		return out
	},
}
