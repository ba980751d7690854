package checks

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var cpuLimitSet = &Rule{
	ID:       "cpu-limit-set",
	Section:  sectionResources,
	Severity: Info,
	OptIn:    true,
	Why:      "a CPU limit throttles the container even when the node has idle CPU; leave it unset when unsure and rely on the request",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil {
			return nil
		}
		var out []Finding
		for _, c := range pt.Containers() {
			if resPatchSets(ctx, obj, c.Name, "resources") {
				continue // an overlay's patch sets them
			}
			lim, ok := resAmount(c.Resources.Limits, corev1.ResourceCPU)
			if !ok {
				continue
			}
			res := c.Path.Child("resources")
			p := res.Child("limits", "cpu")
			val := resQtyText(obj, p, lim)
			f := At(obj, p, fmt.Sprintf("container %q sets a CPU limit of %s: it throttles the container even when the node has idle CPU; remove it unless you need hard isolation", c.Name, val))
			var ops []edit.Op
			desc := "remove the CPU limit"
			if _, hasReq := resAmount(c.Resources.Requests, corev1.ResourceCPU); !hasReq {
				// The request defaulted to the limit: keep it explicit.
				ops = append(ops, resSet(obj, res.Child("requests", "cpu"), val, ""))
				desc = "remove the CPU limit and keep its value as the CPU request"
			}
			if len(c.Resources.Limits) == 1 {
				ops = append(ops, DeleteOp(res.Child("limits")))
			} else {
				ops = append(ops, DeleteOp(p))
			}
			out = append(out, f.WithFix(desc, ops...))
		}
		return out
	},
}
