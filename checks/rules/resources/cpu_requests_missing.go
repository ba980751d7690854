package resources

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var cpuRequestsMissing = &checks.Rule{
	ID:       "cpu-requests-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#requests-and-limits",
	Why:      "a container with no CPU request (nor a limit, which defaults it) gets almost no CPU when the node is busy and is packed onto full nodes",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := kube.WholePodTemplate(ctx, obj)
		if pt == nil || podLevel(pt, corev1.ResourceCPU) {
			return nil
		}
		if req, _ := limitRangeDefaults(ctx, obj, corev1.ResourceCPU); req {
			return nil
		}
		var out []checks.Finding
		for _, c := range pt.Containers() {
			if kube.PatchSets(ctx, obj, c.Name, "resources") {
				continue // an overlay's patch sets them
			}
			_, hasReq := amount(c.Resources.Requests, corev1.ResourceCPU)
			_, hasLim := amount(c.Resources.Limits, corev1.ResourceCPU)
			if hasReq || hasLim {
				continue
			}
			p := c.Path.Child("resources", "requests", "cpu")
			f := checks.At(obj, p, fmt.Sprintf("container %q has no CPU request: set requests.cpu (100m is a starting point; measure the app's real usage)", c.Name))
			out = append(out, f.WithFix("set a CPU request of 100m (a starting point: measure the app's real usage)",
				kube.Set(obj, p, "100m", "starting point: set from the app's measured usage")))
		}
		return out
	},
}
