package kyverno

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// podLabels are labels Kyverno's admission-controller pods carry (3.x
// and 2.x charts and the install manifests), used to tell whether another
// NetworkPolicy lets traffic in to them.
var podLabels = map[string]string{
	"app.kubernetes.io/component": "admission-controller",
	"app.kubernetes.io/instance":  "kyverno",
	"app.kubernetes.io/name":      "kyverno",
	"app.kubernetes.io/part-of":   "kyverno",
	"app":                         "kyverno",
}

var kyvernoWebhookBlockedByNetworkPolicy = &checks.Rule{
	ID:       "kyverno-webhook-blocked-by-networkpolicy",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kyverno.io/docs/troubleshooting/#api-server-is-blocked",
	Why:      "a default-deny NetworkPolicy in Kyverno's namespace blocks the API server's calls to Kyverno's webhook while the chart's own network policy is off",
	Help:     "The API server reaches the admission controller on its webhook port; a default-deny ingress policy drops that traffic, and with fail-closed webhooks every deployment stops. Enable the chart's policy (3.x admissionController.networkPolicy.enabled, 2.x networkPolicy.enabled, with ingressFrom as needed) or add a policy that admits the webhook traffic. Kyverno's namespace is the release's (or namespaceOverride), else kyverno.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range haValues(ctx, obj) {
			key := []string{"networkPolicy", "enabled"}
			if v.Gen == 3 {
				key = []string{"admissionController", "networkPolicy", "enabled"}
			}
			if on, ok := v.effBool(key...); on {
				continue
			} else if n, _ := v.effective(key...); n != nil && !ok {
				continue // a placeholder (${VAR}, a template): cannot tell
			}
			ns := v.Namespace
			if ns == "" {
				ns = "kyverno"
			}
			deny := defaultDeny(ctx, ns)
			if deny == nil {
				continue
			}
			out = append(out, checks.At(v.o(obj), v.p(key...), fmt.Sprintf("NetworkPolicy %s (%s) denies all ingress in Kyverno's namespace %s, and %s is off: the API server cannot reach Kyverno's webhook, so fail-closed webhooks reject every request they intercept; enable the chart's network policy or allow the webhook traffic", deny.Name, deny.File.Path, ns, pathString(key))))
		}
		return out
	},
}

// defaultDeny returns a default-deny ingress NetworkPolicy in ns, unless
// another policy there admits some ingress to Kyverno's pods.
func defaultDeny(ctx *checks.Context, ns string) *manifest.Object {
	var deny *manifest.Object
	for _, o := range ctx.ByKind("NetworkPolicy") {
		np, ok := o.Typed().(*networkingv1.NetworkPolicy)
		if !ok || ctx.Namespace(o) != ns {
			continue
		}
		ingress := len(np.Spec.PolicyTypes) == 0
		for _, t := range np.Spec.PolicyTypes {
			if t == networkingv1.PolicyTypeIngress {
				ingress = true
			}
		}
		if !ingress {
			continue
		}
		if len(np.Spec.Ingress) > 0 {
			if checks.SelectorMatches(&np.Spec.PodSelector, podLabels) || selectsAnyKyvernoLabel(np) {
				return nil // something lets traffic in to Kyverno's pods
			}
			continue
		}
		if len(np.Spec.PodSelector.MatchLabels) == 0 && len(np.Spec.PodSelector.MatchExpressions) == 0 && deny == nil {
			deny = o
		}
	}
	return deny
}

// selectsAnyKyvernoLabel reports whether a policy's podSelector matches
// on one of Kyverno's labels alone (a selector written for one chart
// generation's labels).
func selectsAnyKyvernoLabel(np *networkingv1.NetworkPolicy) bool {
	for k, v := range np.Spec.PodSelector.MatchLabels {
		if podLabels[k] == v {
			return true
		}
	}
	return false
}
