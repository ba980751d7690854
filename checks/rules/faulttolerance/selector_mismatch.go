package faulttolerance

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var selectorMismatch = &checks.Rule{
	ID:       "selector-mismatch",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#selector",
	Why:      "a workload's selector does not match its pod template's labels, which the API server rejects",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := obj.PodTemplate()
		sel := obj.Selector()
		if pt == nil || sel == nil || partial(obj) {
			return nil
		}
		if j, ok := obj.Typed().(*batchv1.Job); ok && (j.Spec.ManualSelector == nil || !*j.Spec.ManualSelector) {
			return nil // the Job controller generates the selector
		}
		if checks.SelectorMatches(sel, pt.Meta.Labels) {
			return nil
		}
		return []checks.Finding{checks.At(obj, manifest.Path{"spec", "selector"}, fmt.Sprintf("spec.selector does not match the labels of spec.template.metadata.labels: the API server rejects this %s (the selector must select the template's own pods)", obj.Kind))}
	},
}
