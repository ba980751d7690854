package checks

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// resMemoryPlaceholder is the memory amount a fix starts from when the
// object says nothing about memory.
const resMemoryPlaceholder = "256Mi"

var memoryRequestsMissing = &Rule{
	ID:       "memory-requests-missing",
	Section:  sectionResources,
	Severity: Warning,
	Why:      "a container with no memory request (nor a limit, which defaults it) is scheduled as if it used no memory and is evicted first under pressure",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil || resPodLevel(pt, corev1.ResourceMemory) {
			return nil
		}
		if req, _ := resLimitRangeDefaults(ctx, obj, corev1.ResourceMemory); req {
			return nil
		}
		var out []Finding
		for _, c := range pt.Containers() {
			if resPatchSets(ctx, obj, c.Name, "resources") {
				continue // an overlay's patch sets them
			}
			_, hasReq := resAmount(c.Resources.Requests, corev1.ResourceMemory)
			_, hasLim := resAmount(c.Resources.Limits, corev1.ResourceMemory)
			if hasReq || hasLim {
				continue
			}
			res := c.Path.Child("resources")
			f := At(obj, res.Child("requests", "memory"), fmt.Sprintf("container %q has no memory request: set requests.memory and the limit equal to it (the fix's %s is a starting point: measure the app's real usage)", c.Name, resMemoryPlaceholder))
			comment := "starting point: set from the app's measured usage"
			out = append(out, f.WithFix(fmt.Sprintf("set memory request and limit to %s (a starting point: measure the app's real usage)", resMemoryPlaceholder),
				resSet(obj, res.Child("requests", "memory"), resMemoryPlaceholder, comment),
				resSet(obj, res.Child("limits", "memory"), resMemoryPlaceholder, comment)))
		}
		return out
	},
}
