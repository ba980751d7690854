package checks

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/prodready/prodready/checks/manifest"
)

var resOneCore = resource.MustParse("1")

var cpuRequestTooHigh = &Rule{
	ID:       "cpu-request-too-high",
	Section:  sectionResources,
	Severity: Info,
	Why:      "a long-running container that requests more than one CPU is hard to schedule and to scale; keep requests at or below 1 CPU unless the app is compute-heavy",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil || !obj.IsLongRunning() {
			return nil
		}
		var out []Finding
		for _, c := range pt.Containers() {
			key := "requests"
			q, ok := resAmount(c.Resources.Requests, corev1.ResourceCPU)
			if !ok { // the request defaults to the limit
				key = "limits"
				q, ok = resAmount(c.Resources.Limits, corev1.ResourceCPU)
			}
			if !ok || q.Cmp(resOneCore) <= 0 {
				continue
			}
			p := c.Path.Child("resources", key, "cpu")
			out = append(out, At(obj, p, fmt.Sprintf("container %q requests %s CPU, more than one core: keep it at or below 1 unless the app is compute-heavy (scale out with replicas instead)", c.Name, resQtyText(obj, p, q))))
		}
		return out
	},
}
