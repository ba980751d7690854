package resources

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/prodready/prodready/checks/manifest"
)

var oneCore = resource.MustParse("1")

var cpuRequestTooHigh = &checks.Rule{
	ID:       "cpu-request-too-high",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://learnk8s.io/production-best-practices#application-development",
	Why:      "a long-running container that requests more than one CPU is hard to schedule and to scale; keep requests at or below 1 CPU unless the app is compute-heavy",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := kube.WholePodTemplate(ctx, obj)
		// Pods that request a GPU, TPU or other device are the compute-heavy
		// case the rule exempts.
		if pt == nil || !obj.IsLongRunning() || kube.DeviceResource(pt) != "" {
			return nil
		}
		var out []checks.Finding
		for _, c := range pt.Containers() {
			if kube.PatchSets(ctx, obj, c.Name, "resources") {
				continue // an overlay's patch sets them
			}
			key := "requests"
			q, ok := amount(c.Resources.Requests, corev1.ResourceCPU)
			if !ok { // the request defaults to the limit
				key = "limits"
				q, ok = amount(c.Resources.Limits, corev1.ResourceCPU)
			}
			if !ok || q.Cmp(oneCore) <= 0 || pinnedCPU(c) {
				continue
			}
			p := c.Path.Child("resources", key, "cpu")
			out = append(out, checks.At(obj, p, fmt.Sprintf("container %q requests %s CPU, more than one core: keep it at or below 1 unless the app is compute-heavy (scale out with replicas instead)", c.Name, qtyText(obj, p, q))))
		}
		return out
	},
}

// pinnedCPU reports whether the container asks for whole dedicated cores
// (an integer CPU request equal to its limit, memory request equal to its
// limit: Guaranteed QoS, which the static CPU manager pins), a deliberate
// choice for compute-heavy work.
func pinnedCPU(c manifest.Container) bool {
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
