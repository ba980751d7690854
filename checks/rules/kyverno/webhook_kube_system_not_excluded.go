package kyverno

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// kubeSystemLabels are the labels of a kube-system namespace that nobody
// labelled: only the one the API server sets.
var kubeSystemLabels = map[string]string{"kubernetes.io/metadata.name": "kube-system"}

var webhookKubeSystemNotExcluded = &checks.Rule{
	ID:       "webhook-kube-system-not-excluded",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/cluster-administration/admission-webhooks-good-practices/#webhook-limit-scope",
	Why:      "a fail-closed webhook on core or apps resources also intercepts kube-system, so when it is down the cluster's own components cannot be repaired or rescheduled",
	Help:     "The namespaceSelector is evaluated against a namespace labelled only kubernetes.io/metadata.name: kube-system (an absent selector matches every namespace). Exclude it, e.g. matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]. Webhooks whose rules match only cluster-scoped objects (scope Cluster, or resources such as namespaces and nodes), whose objectSelector only matches labelled (opted-in) objects, or whose matchConditions mention kube-system, are not judged.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, h := range hooks(obj) {
			if !h.FailClosed || !interceptsNamespacedCore(h) {
				continue
			}
			sel := h.NamespaceSel
			if sel == nil {
				sel = &metav1.LabelSelector{}
			}
			if !checks.SelectorMatches(sel, kubeSystemLabels) {
				continue
			}
			if h.ObjectSel != nil && !checks.SelectorMatches(h.ObjectSel, nil) {
				continue // opt-in: only objects carrying a label are intercepted, and kube-system's do not
			}
			excluded := false
			for _, mc := range h.MatchConditions {
				if strings.Contains(mc.Expression, "kube-system") {
					excluded = true
				}
			}
			if excluded {
				continue
			}
			p := h.Path.Child("namespaceSelector")
			if !obj.Has(p...) {
				p = h.Path
			}
			out = append(out, checks.At(obj, p, fmt.Sprintf("webhook %q fails closed on core/apps resources and its namespaceSelector matches kube-system: when the webhook is down, kube-system's own pods cannot be created or repaired; exclude kube-system (kubernetes.io/metadata.name NotIn [kube-system])", h.Name)))
		}
		return out
	},
}
