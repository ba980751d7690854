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
	Help:     "Labels a kustomization adds to pod templates (commonLabels, or labels with includeTemplates) count. The fix takes name from metadata.name; the other values are placeholders to replace.",
	Check: kube.OnPodTemplatesSkippingPatches(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		have := templateLabels(ctx, obj)
		var missing []string
		var ops []edit.Op
		prev := []string{}
		for _, key := range recommended {
			if _, ok := have[key]; ok {
				prev = append(prev, key)
				continue
			}
			missing = append(missing, key)
			value, comment := placeholder, "placeholder: set the real value"
			if v, ok := obj.Labels[key]; ok && obj.Kind != "Pod" && validValue(v) {
				value, comment = v, "" // the workload's own label
			} else if key == "app.kubernetes.io/name" && validValue(obj.Name) && !manifest.IsPlaceholder(obj.Name) {
				value, comment = obj.Name, ""
			}
			op := checks.SetOp(pt.MetaPath.Child("labels", key), edit.StringScalar(value), append([]string{}, prev...)...)
			op.Comment = comment
			ops = append(ops, op)
			prev = append(prev, key)
		}
		if len(missing) == 0 {
			return nil
		}
		where := "pod template"
		if obj.Kind == "Pod" {
			where = "pod"
		}
		msg := fmt.Sprintf("the %s lacks the recommended labels %s: tools, dashboards and cost reports cannot group its pods by app, instance, version or component", where, strings.Join(missing, ", "))
		desc := "add the missing recommended labels (values from the workload's own labels, name from metadata.name; the others are placeholders to replace)"
		if where == "pod template" {
			desc += "; changing the pod template restarts the pods"
		}
		if templateImmutable(obj) {
			msg += " (a Job's pod template cannot be changed: add them when the Job is next created)"
			return []checks.Finding{checks.At(obj, pt.MetaPath.Child("labels"), msg)}
		}
		f := checks.At(obj, pt.MetaPath.Child("labels"), msg)
		return []checks.Finding{f.WithFix(desc, ops...)}
	}),
}
