package checks

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

// resDefaultCriticalLabels mark a workload critical when the config names none.
var resDefaultCriticalLabels = []string{"prodready.io/critical=true", "criticality=critical"}

var priorityClassMissing = &Rule{
	ID:       "priority-class-missing",
	Section:  sectionResources,
	Severity: Info,
	OptIn:    true,
	Why:      "a workload the config marks critical has no priorityClassName, so under pressure it is evicted or preempted like any other pod",
	Help:     "criticalLabels lists labels (key=value, or key alone for any value) on the workload or its pod template that mark it critical; criticalNamespaces lists namespaces whose workloads are all critical.",
	Params: map[string]any{
		"criticalLabels":     resDefaultCriticalLabels,
		"criticalNamespaces": []string{},
	},
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil || pt.Spec.PriorityClassName != "" {
			return nil
		}
		why := resCriticalBecause(ctx, obj, pt)
		if why == "" {
			return nil
		}
		return []Finding{At(obj, pt.SpecPath.Child("priorityClassName"), fmt.Sprintf("%s is marked critical (%s) but sets no priorityClassName: give it a PriorityClass so the scheduler evicts and preempts other pods first", obj.String(), why))}
	},
}

// resCriticalBecause says why the config marks a workload critical, or "".
func resCriticalBecause(ctx *Context, obj *manifest.Object, pt *manifest.PodTemplate) string {
	ns := ctx.Namespace(obj)
	for _, n := range resStringsParam(ctx.Config, "priority-class-missing", "criticalNamespaces", nil) {
		if n != "" && n == ns {
			return "namespace " + n
		}
	}
	for _, l := range resStringsParam(ctx.Config, "priority-class-missing", "criticalLabels", resDefaultCriticalLabels) {
		key, val, hasVal := strings.Cut(l, "=")
		for _, lbls := range []map[string]string{obj.Labels, pt.Meta.Labels} {
			v, ok := lbls[key]
			if ok && (!hasVal || v == val) {
				return "label " + l
			}
		}
	}
	return ""
}
