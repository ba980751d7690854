package kyverno

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoValuesMixedGeneration = &checks.Rule{
	ID:       "kyverno-values-mixed-generation",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://github.com/kyverno/kyverno/blob/main/charts/kyverno/README.md#new-chart-values",
	Why:      "a Kyverno values file uses the other chart generation's HA keys, which the chart silently ignores (under 3.x, replicaCount, podDisruptionBudget and topologySpreadConstraints do nothing)",
	Help:     "Chart 3.x reads the admission controller's settings under admissionController (replicas, podDisruptionBudget, topologySpreadConstraints, antiAffinity.enabled, podAntiAffinity, container.resources); 2.x reads them at the top level (replicaCount, …, antiAffinity.enable, resources). The fix moves each key to the one this generation reads, unless that key is already set.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range valuesOf(ctx, obj) {
			if v.ChartOwn || v.Gen == 0 || v.Root == nil {
				continue
			}
			for _, m := range haMoves {
				from, to := m.v2, m.v3
				if v.Gen == 2 {
					from, to = m.v3, m.v2
				}
				if v.node(from...) == nil {
					continue
				}
				msg := fmt.Sprintf("%s is a chart %d.x key: %s does not read it, so the setting silently does nothing; it reads %s", pathString(from), 5-v.Gen, v.kyvWhere(), pathString(to))
				f := checks.At(v.o(obj), v.p(from...), msg)
				if ops := moveOps(v, from, to); ops != nil {
					f = f.WithExactFix(fmt.Sprintf("move it to %s", pathString(to)), ops...)
				} else if v.node(to...) != nil {
					f.Message += " (already set here: delete the ignored key)"
				}
				out = append(out, f)
			}
		}
		return out
	},
}
