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
		var out []checks.Finding
		for _, c := range ownResources(ctx, obj, corev1.ResourceCPU, false) {
			if !noRequest(c, corev1.ResourceCPU) {
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
