package labels

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var templateLabelsNotPropagated = &checks.Rule{
	ID:         "template-labels-not-propagated",
	Section:    section,
	Severity:   checks.Info,
	Ref:        "https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/",
	Why:        "an app.kubernetes.io (or configured) label on the workload is missing on its pod template, so the pods, which is what monitoring and cost tools see, are not labelled",
	Help:       "Copy the label into the pod template. That changes the template, so the pods restart in a rolling update. More keys can be configured: `template-labels-not-propagated: {labels: [team]}`.",
	Params:     map[string]any{"labels": []string{}},
	ParamItems: map[string]func(string) error{"labels": checks.LabelKey},
	Check:      templateLabelsCheck,
}

func templateLabelsCheck(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
	if obj.Patch || obj.Kind == "Pod" {
		return nil
	}
	pt := obj.PodTemplate()
	if pt == nil || len(obj.Labels) == 0 {
		return nil
	}
	extra := map[string]bool{}
	for _, k := range ctx.Config.StringsParam("template-labels-not-propagated", "labels") {
		extra[k] = true
	}
	have := templateLabels(ctx, obj)
	var missing []string
	var ops []edit.Op
	for _, key := range sorted(obj.Labels) {
		if !strings.HasPrefix(key, "app.kubernetes.io/") && !extra[key] {
			continue
		}
		if _, ok := have[key]; ok {
			continue
		}
		if v := obj.Labels[key]; v == placeholder || manifest.IsPlaceholder(v) {
			continue // not copied into the pod template until it holds the real value
		}
		missing = append(missing, key)
		ops = append(ops, checks.SetOp(pt.MetaPath.Child("labels", key), edit.StringScalar(obj.Labels[key])))
	}
	if len(missing) == 0 {
		return nil
	}
	msg := fmt.Sprintf("the workload's labels %s are not on its pod template, so its pods are not labelled with them (copying them changes the pod template, which restarts the pods)", quoted(missing))
	if templateImmutable(obj) {
		msg += " (a Job's pod template cannot be changed: add them when the Job is next created)"
		return []checks.Finding{checks.At(obj, pt.MetaPath.Child("labels"), msg)}
	}
	return []checks.Finding{checks.At(obj, pt.MetaPath.Child("labels"), msg).WithFix("copy the labels to the pod template (this restarts the pods in a rolling update)", ops...)}
}

// quoted quotes each label key (strconv.Quote: keys come from the file)
// and joins them with ", ".
func quoted(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}
