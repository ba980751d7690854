package resources

import (
	"fmt"
	"sort"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var limitBelowRequest = &checks.Rule{
	ID:       "limit-below-request",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#requests-and-limits",
	Why:      "a resource limit smaller than its request is rejected by the API server",
	Check: kube.OnWholePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		check := func(who string, res manifest.Path, rr corev1.ResourceRequirements) {
			names := make([]string, 0, len(rr.Requests))
			for n := range rr.Requests {
				names = append(names, string(n))
			}
			sort.Strings(names)
			for _, n := range names {
				req := rr.Requests[corev1.ResourceName(n)]
				lim, ok := rr.Limits[corev1.ResourceName(n)]
				if !ok || lim.Cmp(req) >= 0 {
					continue
				}
				rp, lp := res.Child("requests", n), res.Child("limits", n)
				lv, rv := qtyText(obj, lp, lim), qtyText(obj, rp, req)
				f := checks.At(obj, rp, fmt.Sprintf("%s requests %s of %q but limits it to %s: the API server rejects a limit below its request", who, rv, n, lv))
				out = append(out, f.WithExactFix("set the "+n+" request equal to the limit ("+lv+")", kube.Set(obj, rp, lv, "")))
			}
		}
		for _, c := range pt.AllContainers() {
			check(fmt.Sprintf("container %q", c.Name), c.Path.Child("resources"), c.Resources)
		}
		if pt.Spec.Resources != nil {
			check("the pod", pt.SpecPath.Child("resources"), *pt.Spec.Resources)
		}
		return out
	}),
}
