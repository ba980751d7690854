package kyverno

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoMetricsDisabled = &checks.Rule{
	ID:       "kyverno-metrics-disabled",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kyverno.io/docs/monitoring/",
	Why:      "Kyverno's metrics are switched off (metricsService.create: false or metering.disabled: true), so admission latency and failures go unseen",
	Help:     "Keep metrics on to watch the admission gateway. 2.x reads top-level metricsService.create; 3.x reads <controller>.metricsService.create and <controller>.metering.disabled for each controller.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range valuesOf(ctx, obj) {
			if v.ChartOwn || v.Gen == 0 {
				continue
			}
			var prefixes [][]string
			if v.Gen == 2 {
				prefixes = [][]string{{}, {"cleanupController"}}
			} else {
				for _, c := range []string{"admissionController", "backgroundController", "cleanupController", "reportsController"} {
					prefixes = append(prefixes, []string{c})
				}
			}
			for _, pre := range prefixes {
				at := func(elems ...string) []string { return append(append([]string{}, pre...), elems...) }
				who := "Kyverno's"
				if len(pre) > 0 {
					who = "Kyverno's " + pre[0]
				}
				if b, ok := v.effBool(at("metricsService", "create")...); ok && !b && v.node(at("metricsService", "create")...) != nil {
					p := v.p(at("metricsService", "create")...)
					out = append(out, checks.At(v.o(obj), p, fmt.Sprintf("%s metrics Service is not created (metricsService.create: false): Prometheus cannot scrape admission latency and failures; enable it", who)).
						WithExactFix("create the metrics Service", checks.SetOp(p, "true")))
				}
				if b, ok := v.effBool(at("metering", "disabled")...); ok && b && v.node(at("metering", "disabled")...) != nil {
					p := v.p(at("metering", "disabled")...)
					out = append(out, checks.At(v.o(obj), p, fmt.Sprintf("%s metrics are disabled (metering.disabled: true): admission latency and failures go unseen; enable them", who)).
						WithExactFix("enable metrics", checks.SetOp(p, "false")))
				}
			}
		}
		return out
	},
}
