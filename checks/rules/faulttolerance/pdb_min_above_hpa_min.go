package faulttolerance

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/prodready/prodready/checks/manifest"
)

var pdbMinAboveHPAMin = &checks.Rule{
	ID:       "pdb-min-above-hpa-min",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/run-application/configure-pdb/#specifying-a-poddisruptionbudget",
	Why:      "a PodDisruptionBudget's minAvailable at or above the HPA's minReplicas blocks every eviction whenever the HPA has scaled down",
	Help: "Lower minAvailable below the HPA's minReplicas, or use maxUnavailable. pdb-blocks-eviction reports the same PDB (it counts the HPA's minReplicas too); " +
		"this rule speaks only when that one is switched off or ignored for the PDB, so a problem is reported once.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pdb := pdb(obj)
		if pdb == nil || pdb.Spec.MinAvailable == nil || pdb.Spec.MaxUnavailable != nil || obj.Annotations[allowNoEvictionAnnotation] == "true" {
			return nil
		}
		ws := pdbWorkloads(ctx, obj, pdb)
		if len(ws) == 0 {
			return nil
		}
		total := 0
		var hpas []string
		for _, w := range ws {
			m, ok := hpaMin(ctx, w)
			if !ok || m < 1 {
				return nil // pods not scaled by an HPA: pdb-blocks-eviction's business
			}
			total += int(m)
			hpas = append(hpas, fmt.Sprintf("%s %q: %d", w.Kind, w.Name, m))
		}
		need, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, total, true)
		if err != nil || need < total {
			return nil
		}
		if blocksEvictionReported(ctx, obj) {
			return nil // one finding per problem: pdb-blocks-eviction reports it on the same line
		}
		return []checks.Finding{checks.At(obj, manifest.Path{"spec", "minAvailable"}, fmt.Sprintf("minAvailable: %s is at least the HPA's minReplicas (%s): when the HPA scales down, no pod can be evicted and node drains hang",
			intOrString(pdb.Spec.MinAvailable), strings.Join(hpas, ", ")))}
	},
}

// blocksEvictionReported reports whether pdb-blocks-eviction reports this
// PDB (enabled, not ignored on the object, and firing).
func blocksEvictionReported(ctx *checks.Context, obj *manifest.Object) bool {
	if rc, ok := ctx.Config.Rules["pdb-blocks-eviction"]; ok && rc.Enabled != nil && !*rc.Enabled {
		return false
	}
	if checks.ObjectIgnores(obj, "pdb-blocks-eviction") {
		return false
	}
	_, blocks := pdbBlocks(ctx, obj)
	return blocks
}
