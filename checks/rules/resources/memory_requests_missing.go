package resources

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// memoryPlaceholder is the memory amount a fix starts from when the
// object says nothing about memory.
const memoryPlaceholder = "256Mi"

var memoryRequestsMissing = &checks.Rule{
	ID:       "memory-requests-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#how-pods-with-resource-requests-are-scheduled",
	Why:      "a container with no memory request (nor a limit, which defaults it) is scheduled as if it used no memory and is evicted first under pressure",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, c := range ownResources(ctx, obj, corev1.ResourceMemory, false) {
			if !noRequest(c, corev1.ResourceMemory) {
				continue
			}
			res := c.Path.Child("resources")
			qty, why := memoryPlaceholder, ""
			if floor, family := kube.MemoryFloor(ctx, obj, c); floor != "" {
				// 256Mi would OOM-kill a JVM or a database before it serves.
				qty, why = floor, fmt.Sprintf(", the least the %s image works with", family)
			}
			f := checks.At(obj, res.Child("requests", "memory"), fmt.Sprintf("container %q has no memory request: set requests.memory and the limit equal to it (the fix's %s is a starting point%s: measure the app's real usage)", c.Name, qty, why))
			comment := "starting point: set from the app's measured usage"
			out = append(out, f.WithFix(fmt.Sprintf("set memory request and limit to %s%s (a starting point: measure the app's real usage)", qty, why),
				kube.Set(obj, res.Child("requests", "memory"), qty, comment),
				kube.Set(obj, res.Child("limits", "memory"), qty, comment)))
		}
		return out
	},
}
