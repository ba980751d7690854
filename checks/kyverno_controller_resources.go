package checks

import (
	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoControllerResources = &Rule{
	ID:       "kyverno-controller-resources",
	Section:  sectionKyverno,
	Severity: Info,
	Why:      "Kyverno's background, cleanup or reports controller lacks requests or a memory limit (000: 50m/64Mi requests, 128Mi limit)",
	Help:     "Judged after Helm merges the values over the chart's defaults; disabled controllers are skipped. Chart 2.x has only the cleanup controller (2.7+).",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		var out []Finding
		for _, v := range kyvHAValues(ctx, obj) {
			ctrls := []string{"backgroundController", "cleanupController", "reportsController"}
			if v.Gen == 2 {
				ctrls = []string{"cleanupController"}
				if v.VersionExact && v.Version.Less(kyvVer(2, 7, 0)) {
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
				if f, ok := kyvResourcesFinding(obj, v, []string{c, "resources"}, "Kyverno's "+c, kyvResourceTargets{cpu: "50m", mem: "64Mi", limit: "128Mi", noMin: true}); ok {
					out = append(out, f)
				}
			}
		}
		return out
	},
}
