package resources

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

// defaultCriticalLabels mark a workload critical when the config names none.
var defaultCriticalLabels = []string{"prodready.io/critical=true", "criticality=critical"}

var priorityClassMissing = &checks.Rule{
	ID:       "priority-class-missing",
	Section:  section,
	Severity: checks.Info,
	OptIn:    true,
	Ref:      "https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/",
	Why:      "a workload the config marks critical has no priorityClassName, so under pressure it is evicted or preempted like any other pod",
	Help:     "criticalLabels lists labels (key=value, or key alone for any value) on the workload or its pod template that mark it critical; criticalNamespaces lists namespaces whose workloads are all critical.",
	Params: map[string]any{
		"criticalLabels":     defaultCriticalLabels,
		"criticalNamespaces": []string{},
	},
	ParamItems: map[string]func(string) error{"criticalLabels": checks.LabelKeyOrPair, "criticalNamespaces": checks.NamespaceName},
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := kube.WholePodTemplate(ctx, obj)
		if pt == nil || pt.Spec.PriorityClassName != "" {
			return nil
		}
		why := criticalBecause(ctx, obj, pt)
		if why == "" {
			return nil
		}
		return []checks.Finding{checks.At(obj, pt.SpecPath.Child("priorityClassName"), fmt.Sprintf("%s %q is marked critical (%s) but sets no priorityClassName: give it a PriorityClass so the scheduler evicts and preempts other pods first", obj.Kind, obj.Name, why))}
	},
}

// criticalBecause says why the config marks a workload critical, or "".
func criticalBecause(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) string {
	ns := ctx.Namespace(obj)
	for _, n := range ctx.Config.StringsParam("priority-class-missing", "criticalNamespaces") {
		if n != "" && n == ns {
			return "namespace " + n
		}
	}
	for _, l := range ctx.Config.StringsParam("priority-class-missing", "criticalLabels") {
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
