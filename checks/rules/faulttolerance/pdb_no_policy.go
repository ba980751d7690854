package faulttolerance

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var pdbNoPolicy = &checks.Rule{
	ID:       "pdb-no-policy",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/run-application/configure-pdb/#specifying-a-poddisruptionbudget",
	Why:      "a policy/v1 PodDisruptionBudget without minAvailable or maxUnavailable protects nothing, and one with selector: {} covers every pod of the namespace",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pdb := pdb(obj)
		if pdb == nil || obj.APIVersion != "policy/v1" {
			return nil
		}
		var out []checks.Finding
		if pdb.Spec.MinAvailable == nil && pdb.Spec.MaxUnavailable == nil {
			out = append(out, checks.At(obj, manifest.Path{"spec"}, "PodDisruptionBudget sets neither minAvailable nor maxUnavailable: it protects nothing (set maxUnavailable: 1, say)"))
		}
		if s := pdb.Spec.Selector; s != nil && len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 {
			out = append(out, checks.At(obj, manifest.Path{"spec", "selector"}, "PodDisruptionBudget has selector: {}, which in policy/v1 selects every pod of the namespace: select the pods of one workload"))
		}
		return out
	},
}
