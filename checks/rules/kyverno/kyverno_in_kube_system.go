package kyverno

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoInKubeSystem = &checks.Rule{
	ID:       "kyverno-in-kube-system",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kyverno.io/docs/installation/",
	Why:      "Kyverno is installed into kube-system, which the chart itself refuses: its webhooks would then judge the cluster's own components, and an outage would block kube-system",
	Help:     "Install Kyverno into its own namespace (kyverno, as in Kyverno's install instructions). Checked on Flux HelmReleases (targetNamespace or the release's namespace), Argo CD Applications (destination.namespace), the chart's namespaceOverride/namespace value, and Kyverno's install manifests.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range valuesOf(ctx, obj) {
			if v.ChartOwn || v.Namespace != "kube-system" {
				continue
			}
			p := v.NamespacePath
			if p != nil && !v.o(obj).Has(p...) {
				p = nil
			}
			out = append(out, checks.At(v.o(obj), p, fmt.Sprintf("Kyverno is installed into kube-system (%s): the chart refuses to install there, and Kyverno's webhooks must not gate the cluster's own components; use its own namespace, e.g. kyverno", v.kyvWhere())))
		}
		if isInstallDeployment(obj) && ctx.Namespace(obj) == "kube-system" {
			out = append(out, checks.At(obj, manifest.Path{"metadata", "namespace"}, fmt.Sprintf("%s %q (Kyverno) runs in kube-system: Kyverno's webhooks must not gate the cluster's own components; install it into its own namespace, e.g. kyverno", obj.Kind, obj.Name)))
		}
		return out
	},
}

// isInstallDeployment reports whether obj is Kyverno's admission
// controller Deployment from the install manifests.
func isInstallDeployment(obj *manifest.Object) bool {
	if obj.Kind != "Deployment" || obj.PodTemplate() == nil {
		return false
	}
	if obj.Name != "kyverno" && obj.Name != "kyverno-admission-controller" {
		return false
	}
	for _, c := range obj.PodTemplate().Containers() {
		if strings.Contains(c.Image, "kyverno/kyverno") {
			return true
		}
	}
	return obj.Labels["app.kubernetes.io/part-of"] == "kyverno" || obj.Labels["app.kubernetes.io/name"] == "kyverno"
}
