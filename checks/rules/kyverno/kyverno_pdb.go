package kyverno

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoPDB = &checks.Rule{
	ID:       "kyverno-pdb",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://github.com/kyverno/kyverno/blob/main/charts/kyverno/README.md#values",
	Why:      "the Kyverno chart will render no PodDisruptionBudget for the admission controller, or one that blocks every drain (replicas ≤ minAvailable)",
	Help:     "What renders a PDB differs by chart version: 2.x and 3.0–3.1 only when the replica count is above 1 (no enable key); 3.2+ when podDisruptionBudget.enabled is true or replicas are above 1. minAvailable defaults to 1. Raising replicas to 3 renders the PDB on every version.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range haValues(ctx, obj) {
			r, ok := v.kyvReplicas()
			if !ok {
				continue
			}
			pdb := v.kyvPDBPath()
			rendered, known := v.kyvPDBRendered()
			if !known {
				continue
			}
			if !rendered {
				msg := fmt.Sprintf("no PodDisruptionBudget will be rendered for the Kyverno admission controller (%s renders it only when the replica count is above 1", v.kyvWhere())
				if v.kyvAtLeast(3, 2) {
					msg += " or podDisruptionBudget.enabled is true"
				}
				msg += "): a node drain can evict every replica at once and stop admission; run 3 replicas, which renders the PDB"
				path := v.p(pdb...)
				if v.node(pdb...) == nil {
					path = v.p(r.path...)
				}
				f := checks.At(v.o(obj), path, msg)
				switch {
				case !r.autoscaling:
					f = f.WithFix("run 3 admission-controller replicas (renders the PodDisruptionBudget)", checks.SetOp(v.p(r.path...), "3"))
				case v.kyvAtLeast(3, 2):
					f = f.WithFix("enable the admission controller's PodDisruptionBudget", checks.SetOp(v.p(append(pdb, "enabled")...), "true"))
				}
				out = append(out, f)
				continue
			}
			if min, key, ok := v.kyvPDBMinAvailable(r.count); ok && min >= r.count {
				path := v.p(append(pdb, key)...)
				f := checks.At(v.o(obj), path, fmt.Sprintf("the Kyverno admission controller's PodDisruptionBudget keeps %d pod(s) available out of %d replica(s): no pod can ever be evicted, so node drains hang; run 3 replicas with minAvailable 1", min, r.count))
				if !r.autoscaling && min < 3 {
					f = f.WithFix("run 3 admission-controller replicas", checks.SetOp(v.p(r.path...), "3"))
				}
				out = append(out, f)
			}
		}
		return out
	},
}

// kyvPDBPath returns the values key of the admission controller's PDB.
func (v *values) kyvPDBPath() []string {
	if v.Gen == 3 {
		return []string{"admissionController", "podDisruptionBudget"}
	}
	return []string{"podDisruptionBudget"}
}

// kyvPDBRendered reports whether the chart renders the admission
// controller's PDB; known is false when that depends on a chart version
// that cannot be resolved.
func (v *values) kyvPDBRendered() (rendered, known bool) {
	replicas := 1
	if n, _ := v.effective(v.kyvReplicaKey()...); n != nil {
		if c, ok := v.effInt(v.kyvReplicaKey()...); ok {
			replicas = c
		} else {
			return false, false
		}
	}
	if replicas > 1 {
		return true, true
	}
	if v.Gen == 2 {
		return false, true
	}
	enabled, _ := v.effBool("admissionController", "podDisruptionBudget", "enabled")
	if !enabled {
		return false, true
	}
	if v.VersionExact {
		return v.kyvAtLeast(3, 2), true
	}
	return false, false // 3.0–3.1 ignore enabled, 3.2+ honour it
}

// kyvReplicaKey is the key the chart's PDB condition reads (replicas, not
// the autoscaler's minimum).
func (v *values) kyvReplicaKey() []string {
	if v.Gen == 3 {
		return []string{"admissionController", "replicas"}
	}
	return []string{"replicaCount"}
}

// kyvPDBMinAvailable returns how many pods the rendered PDB keeps available
// out of replicas, and the key that decides it. The chart uses
// maxUnavailable when it is set (non-zero), else minAvailable (default 1).
func (v *values) kyvPDBMinAvailable(replicas int) (int, string, bool) {
	pdb := v.kyvPDBPath()
	if n, _ := v.effective(append(pdb, "maxUnavailable")...); n != nil && n.Value != "" && n.Value != "0" {
		mu := intOrPercent(n.Value)
		m, err := intstr.GetScaledValueFromIntOrPercent(&mu, replicas, true)
		if err != nil {
			return 0, "", false
		}
		return replicas - m, "maxUnavailable", true
	}
	n, _ := v.effective(append(pdb, "minAvailable")...)
	if n == nil || n.Value == "" || n.Value == "0" {
		return 1, "minAvailable", true
	}
	ma := intOrPercent(n.Value)
	m, err := intstr.GetScaledValueFromIntOrPercent(&ma, replicas, true)
	if err != nil {
		return 0, "", false
	}
	return m, "minAvailable", true
}

// intOrPercent reads "1" or "50%".
func intOrPercent(s string) intstr.IntOrString {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "%") {
		return intstr.FromString(s)
	}
	return intstr.Parse(s)
}
