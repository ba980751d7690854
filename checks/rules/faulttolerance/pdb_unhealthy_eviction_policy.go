package faulttolerance

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var pdbUnhealthyEvictionPolicy = &checks.Rule{
	ID:       "pdb-unhealthy-eviction-policy",
	Section:  section,
	Severity: checks.Info,
	OptIn:    true,
	Ref:      "https://kubernetes.io/docs/tasks/run-application/configure-pdb/#unhealthy-pod-eviction-policy",
	Why:      "without unhealthyPodEvictionPolicy: AlwaysAllow, pods that never became ready count against the budget and can block node drains",
	Help:     "unhealthyPodEvictionPolicy is on by default from Kubernetes 1.27 (GA in 1.31); the rule checks policy/v1 PDBs when the target version has it.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pdb := pdb(obj)
		if pdb == nil || obj.APIVersion != "policy/v1" || pdb.Spec.UnhealthyPodEvictionPolicy != nil || ctx.Config.TargetMinor() < 27 {
			return nil
		}
		path := manifest.Path{"spec", "unhealthyPodEvictionPolicy"}
		return []checks.Finding{checks.At(obj, path, "PodDisruptionBudget has no unhealthyPodEvictionPolicy: pods that never became ready can block node drains (AlwaysAllow lets drains evict them)").
			WithExactFix("set unhealthyPodEvictionPolicy: AlwaysAllow", checks.SetOp(path, "AlwaysAllow", "minAvailable", "maxUnavailable", "selector"))}
	},
}
