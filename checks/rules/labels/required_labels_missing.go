package labels

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var requiredLabelsMissing = &checks.Rule{
	ID:         "required-labels-missing",
	Section:    section,
	Severity:   checks.Error,
	OptIn:      true,
	Ref:        "https://learnk8s.io/production-best-practices#governance",
	Why:        "an object lacks a label the organisation requires (owner, project, business-unit, confidentiality, compliance…), so ownership, cost and data handling cannot be traced",
	Help:       "Configure the list: `required-labels-missing: {enabled: true, labels: [owner, project]}`. Labels a kustomization adds (commonLabels, labels) count.",
	Params:     map[string]any{"labels": []string{}},
	ParamItems: map[string]func(string) error{"labels": checks.LabelKey},
	Check:      requiredLabelsCheck,
}

func requiredLabelsCheck(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
	required := ctx.Config.StringsParam("required-labels-missing", "labels")
	if len(required) == 0 || !isK8sObject(obj) {
		return nil
	}
	have := objectLabels(ctx, obj)
	var missing []string
	for _, key := range required {
		if v, ok := have[key]; !ok || v == "" {
			missing = append(missing, key)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s lacks the required labels %s (set in the config)", obj.Kind, strings.Join(missing, ", "))
	return []checks.Finding{checks.At(obj, manifest.Path{"metadata", "labels"}, msg)}
}
