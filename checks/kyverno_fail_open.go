package checks

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoFailOpen = &Rule{
	ID:       "kyverno-fail-open",
	Section:  sectionKyverno,
	Severity: Warning,
	Why:      "Kyverno is set to fail open (features.forceFailurePolicyIgnore, or a policy's failurePolicy: Ignore): while it is down, resources are admitted unchecked",
	Help:     "000: with fail-open, an outage of the admission controller lets everything in without policy checks. Prefer fail-closed with a highly available Kyverno (3 replicas, PDB, spread).",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		var out []Finding
		for _, v := range kyvValuesOf(ctx, obj) {
			if v.ChartOwn {
				continue
			}
			key := []string{"features", "forceFailurePolicyIgnore", "enabled"}
			if b, ok := v.effBool(key...); ok && b && v.node(key...) != nil {
				out = append(out, At(v.o(obj), v.p(key...), "features.forceFailurePolicyIgnore.enabled makes every Kyverno webhook fail open: while Kyverno is down, resources are admitted without any policy check (000: section 1)"))
			}
		}
		if !kyvIsPolicy(obj) {
			return out
		}
		for _, p := range []manifest.Path{{"spec", "failurePolicy"}, {"spec", "webhookConfiguration", "failurePolicy"}} {
			if s, ok := obj.Scalar(p...); ok && s == "Ignore" {
				out = append(out, At(obj, p, fmt.Sprintf("%s %s fails open (failurePolicy: Ignore): while Kyverno is unreachable, the resources it guards are admitted unchecked (000: section 1)", obj.Kind, obj.Name)))
			}
		}
		return out
	},
}

// kyvIsPolicy reports whether obj is a Kyverno policy: kyverno.io
// ClusterPolicy/Policy or a policies.kyverno.io kind.
func kyvIsPolicy(obj *manifest.Object) bool {
	group, _, _ := strings.Cut(obj.APIVersion, "/")
	switch group {
	case "kyverno.io":
		return obj.Kind == "ClusterPolicy" || obj.Kind == "Policy"
	case "policies.kyverno.io":
		return strings.HasSuffix(obj.Kind, "Policy")
	}
	return false
}
