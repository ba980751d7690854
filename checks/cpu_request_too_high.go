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
		// Pods that request a GPU, TPU or other device are the compute-heavy
		// case 004 exempts.
		if pt == nil || !obj.IsLongRunning() || secDeviceResource(pt) != "" {
			return nil
		}
		var out []Finding
		for _, c := range pt.Containers() {
			if resPatchSets(ctx, obj, c.Name, "resources") {
				continue // an overlay's patch sets them
			}
			key := "requests"
			q, ok := resAmount(c.Resources.Requests, corev1.ResourceCPU)
			if !ok { // the request defaults to the limit
				key = "limits"
				q, ok = resAmount(c.Resources.Limits, corev1.ResourceCPU)
			}
			if !ok || q.Cmp(resOneCore) <= 0 || resPinnedCPU(c) {
				continue
			}
			p := c.Path.Child("resources", key, "cpu")
			out = append(out, At(obj, p, fmt.Sprintf("container %q requests %s CPU, more than one core: keep it at or below 1 unless the app is compute-heavy (scale out with replicas instead)", c.Name, resQtyText(obj, p, q))))
		}
		return out
	},
}

// resPinnedCPU reports whether the container asks for whole dedicated cores
// (an integer CPU request equal to its limit, memory request equal to its
// limit: Guaranteed QoS, which the static CPU manager pins), a deliberate
// choice for compute-heavy work.
func resPinnedCPU(c manifest.Container) bool {
	rq, lim := c.Resources.Requests, c.Resources.Limits
	cpuL, ok := lim[corev1.ResourceCPU]
	if !ok || cpuL.MilliValue()%1000 != 0 {
		return false
	}
	if cpuR, ok := rq[corev1.ResourceCPU]; ok && cpuR.Cmp(cpuL) != 0 {
		return false
	}
	memL, ok := lim[corev1.ResourceMemory]
	if !ok {
		return false
	}
	memR, ok := rq[corev1.ResourceMemory]
	return !ok || memR.Cmp(memL) == 0
}
