package faulttolerance

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var pdbBlocksEviction = &checks.Rule{
	ID:       "pdb-blocks-eviction",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/run-application/configure-pdb/#specifying-a-poddisruptionbudget",
	Why:      "a PodDisruptionBudget that lets no pod be evicted makes node drains and cluster upgrades hang",
	Help: "minAvailable at or above the pods it covers (replicas, or the HPA's minReplicas; percentages round up, so 67% of 3 is 3), or maxUnavailable 0 / 0%, blocks every voluntary eviction. " +
		"Kubernetes documents maxUnavailable: 0 as a choice for single-instance stateful apps: annotate the PDB with prodready.dev/allow-no-eviction: \"true\", or set the rule parameter allowMaxUnavailableZero: true, when it is deliberate.",
	Params: map[string]any{"allowMaxUnavailableZero": false},
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		b, ok := pdbBlocks(ctx, obj)
		if !ok {
			return nil
		}
		f := checks.At(obj, b.path, b.message)
		f.Fix = b.fix
		return []checks.Finding{f}
	},
}
