package kyverno

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoFailOpen = &checks.Rule{
	ID:       "kyverno-fail-open",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kyverno.io/docs/installation/#security-vs-operability",
	Why:      "Kyverno is set to fail open (features.forceFailurePolicyIgnore, or a policy's failurePolicy: Ignore): while it is down, resources are admitted unchecked",
	Help:     "With fail-open, an outage of the admission controller lets everything in without policy checks. Prefer fail-closed with a highly available Kyverno (3 replicas, PDB, spread).",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range valuesOf(ctx, obj) {
			if v.ChartOwn {
				continue
			}
			key := []string{"features", "forceFailurePolicyIgnore", "enabled"}
			if b, ok := v.effBool(key...); ok && b && v.node(key...) != nil {
				out = append(out, checks.At(v.o(obj), v.p(key...), "features.forceFailurePolicyIgnore.enabled makes every Kyverno webhook fail open: while Kyverno is down, resources are admitted without any policy check"))
			}
		}
		if !isPolicy(obj) {
			return out
		}
		for _, p := range []manifest.Path{{"spec", "failurePolicy"}, {"spec", "webhookConfiguration", "failurePolicy"}} {
			if s, ok := obj.Scalar(p...); ok && s == "Ignore" {
				out = append(out, checks.At(obj, p, fmt.Sprintf("%s %q fails open (failurePolicy: Ignore): while Kyverno is unreachable, the resources it guards are admitted unchecked", obj.Kind, obj.Name)))
			}
		}
		return out
	},
}

// isPolicy reports whether obj is a Kyverno policy: kyverno.io
// ClusterPolicy/Policy or a policies.kyverno.io kind.
func isPolicy(obj *manifest.Object) bool {
	group, _, _ := strings.Cut(obj.APIVersion, "/")
	switch group {
	case "kyverno.io":
		return obj.Kind == "ClusterPolicy" || obj.Kind == "Policy"
	case "policies.kyverno.io":
		return strings.HasSuffix(obj.Kind, "Policy")
	}
	return false
}
