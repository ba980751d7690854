package labels

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// recommended are Kubernetes's recommended labels, in the order the fix
// inserts them.
var recommended = []string{
	"app.kubernetes.io/name",
	"app.kubernetes.io/instance",
	"app.kubernetes.io/version",
	"app.kubernetes.io/component",
	"app.kubernetes.io/part-of",
	"app.kubernetes.io/managed-by",
}

// placeholder is the value the fix writes where it cannot know the real
// one: a valid label value, so the object is still accepted.
const placeholder = "change-me"

var recommendedLabelsMissing = &checks.Rule{
	ID:       "recommended-labels-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/",
	Why:      "the pods lack Kubernetes's recommended app.kubernetes.io labels, so tools, dashboards and cost reports cannot tell which app, instance, version and component they belong to",
	Help:     "Labels a kustomization adds to pod templates (commonLabels, or labels with includeTemplates) count. The fix writes into the pod template only real values (the workload's own labels, name from metadata.name), since a pod-template change restarts every pod; the others go on the workload's metadata as placeholders to replace, and the next run copies them once they hold real values.",
	Check:    kube.OnPodTemplatesSkippingPatches(checkRecommendedLabels),
}

// checkRecommendedLabels reports the recommended labels a pod template
// lacks. Its fix writes into the pod template only labels whose real value
// it knows (the workload's own label, the name from metadata.name):
// changing a pod template restarts every pod, so it never writes a
// placeholder there. The others go on the workload's own metadata with a
// placeholder, where changing them restarts nothing; once they hold real
// values, the next run copies them to the pod template. A bare Pod's
// labels are its own metadata, so they get placeholders directly.
func checkRecommendedLabels(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
	have := templateLabels(ctx, obj)
	pod := obj.Kind == "Pod"
	var missing, waiting []string
	var ops []edit.Op
	var reads []manifest.Path
	prev := []string{}
	metaPrev := sorted(obj.Labels)
	for _, key := range recommended {
		if _, ok := have[key]; ok {
			prev = append(prev, key)
			continue
		}
		missing = append(missing, key)
		value, known := "", false
		if v, ok := obj.Labels[key]; ok && !pod && validValue(v) && v != placeholder && !manifest.IsPlaceholder(v) {
			value, known = v, true // the workload's own label
		} else if key == "app.kubernetes.io/name" && validValue(obj.Name) && !manifest.IsPlaceholder(obj.Name) {
			value, known = obj.Name, true
			reads = append(reads, manifest.Path{"metadata", "name"})
		}
		switch {
		case known:
			ops = append(ops, checks.SetOp(pt.MetaPath.Child("labels", key), edit.StringScalar(value), append([]string{}, prev...)...))
			prev = append(prev, key)
		case pod:
			op := checks.SetOp(pt.MetaPath.Child("labels", key), edit.StringScalar(placeholder), append([]string{}, prev...)...)
			op.Comment = "placeholder: set the real value"
			ops = append(ops, op)
			prev = append(prev, key)
		default:
			waiting = append(waiting, key)
			if _, ok := obj.Labels[key]; ok {
				continue // a placeholder already waits for its value
			}
			op := checks.SetOp(manifest.Path{"metadata", "labels", key}, edit.StringScalar(placeholder), append([]string{}, metaPrev...)...)
			op.Comment = "placeholder: set the real value, then copy it to the pod template"
			ops = append(ops, op)
			metaPrev = append(metaPrev, key)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	where := "pod template"
	if pod {
		where = "pod"
	}
	msg := fmt.Sprintf("the %s lacks the recommended labels %s: tools, dashboards and cost reports cannot group its pods by app, instance, version or component", where, strings.Join(missing, ", "))
	if len(waiting) > 0 {
		msg += fmt.Sprintf("; set the real values of %s on the %s's metadata.labels, and they can be copied to the pod template (which restarts its pods)", strings.Join(waiting, ", "), obj.Kind)
	}
	if templateImmutable(obj) {
		msg += " (a Job's pod template cannot be changed: add them when the Job is next created)"
		return []checks.Finding{checks.At(obj, pt.MetaPath.Child("labels"), msg)}
	}
	f := checks.At(obj, pt.MetaPath.Child("labels"), msg)
	if len(ops) == 0 {
		return []checks.Finding{f}
	}
	var desc string
	switch {
	case pod:
		desc = "add the missing recommended labels (name from metadata.name; the others are placeholders to replace)"
	case len(waiting) == 0:
		desc = "add the recommended labels to the pod template with the workload's own values (changing the pod template restarts the pods)"
	case len(ops) > len(waiting):
		desc = fmt.Sprintf("add the labels whose values are known to the pod template (this restarts the pods), and %s as placeholders on the %s's metadata, where they restart nothing, to replace with the real values", strings.Join(waiting, ", "), obj.Kind)
	default:
		desc = fmt.Sprintf("add %s as placeholders on the %s's metadata, where they restart nothing, to replace with the real values", strings.Join(waiting, ", "), obj.Kind)
	}
	f = f.WithFix(desc, ops...)
	f.Fix.Reads = reads // a chart writes the name as it computes metadata.name
	return []checks.Finding{f}
}
