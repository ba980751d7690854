package kyverno

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoControllerResources = &checks.Rule{
	ID:       "kyverno-controller-resources",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kyverno.io/docs/installation/scaling/",
	Why:      "Kyverno's background, cleanup or reports controller lacks requests or a memory limit (a starting point: 50m/64Mi requests, 128Mi limit)",
	Help:     "Judged after Helm merges the values over the chart's defaults; disabled controllers are skipped. Chart 2.x has only the cleanup controller (2.7+).",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range haValues(ctx, obj) {
			ctrls := []string{"backgroundController", "cleanupController", "reportsController"}
			if v.Gen == 2 {
				ctrls = []string{"cleanupController"}
				if v.VersionExact && v.Version.Less(ver(2, 7, 0)) {
					continue
				}
				if n, _ := v.effective("cleanupController"); n == nil {
					continue // a 2.x chart without the cleanup controller
				}
			}
			for _, c := range ctrls {
				if on, ok := v.effBool(c, "enabled"); ok && !on {
					continue
				}
				if v.Gen == 2 {
					if on, _ := v.effBool(c, "enabled"); !on {
						continue // 2.7's cleanup controller is off by default
					}
				}
				if f, ok := resourcesFinding(obj, v, []string{c, "resources"}, "Kyverno's "+c, resourceTargets{cpu: "50m", mem: "64Mi", limit: "128Mi", noMin: true}); ok {
					out = append(out, f)
				}
			}
		}
		return out
	},
}
