package resources

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var cpuLimitSet = &checks.Rule{
	ID:       "cpu-limit-set",
	Section:  section,
	Severity: checks.Info,
	OptIn:    true,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#how-pods-with-resource-limits-are-run",
	Why:      "a CPU limit throttles the container even when the node has idle CPU; leave it unset when unsure and rely on the request",
	Check: kube.OnWholePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.Containers() {
			if kube.PatchSets(ctx, obj, c.Name, "resources") {
				continue // an overlay's patch sets them
			}
			lim, ok := amount(c.Resources.Limits, corev1.ResourceCPU)
			if !ok {
				continue
			}
			res := c.Path.Child("resources")
			p := res.Child("limits", "cpu")
			val := qtyText(obj, p, lim)
			f := checks.At(obj, p, fmt.Sprintf("container %q sets a CPU limit of %s: it throttles the container even when the node has idle CPU; remove it unless you need hard isolation", c.Name, val))
			var ops []edit.Op
			desc := "remove the CPU limit"
			if _, hasReq := amount(c.Resources.Requests, corev1.ResourceCPU); !hasReq {
				// The request defaulted to the limit: keep it explicit.
				ops = append(ops, kube.Set(obj, res.Child("requests", "cpu"), val, ""))
				desc = "remove the CPU limit and keep its value as the CPU request"
			}
			if len(c.Resources.Limits) == 1 {
				ops = append(ops, checks.DeleteOp(res.Child("limits")))
			} else {
				ops = append(ops, checks.DeleteOp(p))
			}
			out = append(out, f.WithFix(desc, ops...))
		}
		return out
	}),
}
