package kyverno

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoReplicas = &checks.Rule{
	ID:       "kyverno-replicas",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kyverno.io/docs/high-availability/#how-ha-works-in-kyverno",
	Why:      "the Kyverno admission controller runs fewer than 3 replicas (3 keep admission up during upgrades; chart 2.6.0–3.1.x refuse exactly 2)",
	Help:     "Kyverno is the cluster's admission gateway: with one replica an upgrade or a node failure stops every admission request. The count is read from the keys the chart generation uses (3.x admissionController.replicas, or autoscaling.minReplicas when admissionController.autoscaling.enabled; 2.x replicaCount); null or absent counts as 1.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range haValues(ctx, obj) {
			r, ok := v.kyvReplicas()
			if !ok || r.count >= 3 {
				continue
			}
			key := manifest.Path(r.path).String()
			if r.count == 2 && v.VersionExact && !v.Version.Less(ver(2, 6, 0)) && v.Version.Less(ver(3, 2, 0)) {
				f := checks.At(v.o(obj), v.p(r.path...), fmt.Sprintf("%s is 2: %s refuses to install with exactly 2 replicas; use 3, enough to keep the gateway up during upgrades", key, v.kyvWhere()))
				out = append(out, f.WithSeverity(checks.Error).WithFix("run 3 admission-controller replicas", checks.SetOp(v.p(r.path...), "3")))
				continue
			}
			what := fmt.Sprintf("%s is %d", key, r.count)
			if !r.set {
				what = fmt.Sprintf("%s is not set, so 1 replica runs", key)
			}
			f := checks.At(v.o(obj), v.p(r.path...), fmt.Sprintf("the Kyverno admission controller runs %d replica(s) (%s, %s): when it is down or being upgraded, admission requests fail or go unchecked; run 3", r.count, what, v.kyvWhere()))
			out = append(out, f.WithFix("run 3 admission-controller replicas", checks.SetOp(v.p(r.path...), "3")))
		}
		return out
	},
}

// replicaCount is the effective admission-controller replica count.
type replicaCount struct {
	count int
	// path is the values key that holds the count.
	path []string
	// set reports whether any layer sets it (not null).
	set         bool
	autoscaling bool
}

// kyvReplicas returns the effective admission-controller count; ok is
// false when it is not a number (a template expression).
func (v *values) kyvReplicas() (replicaCount, bool) {
	var r replicaCount
	switch v.Gen {
	case 3:
		if on, _ := v.effBool("admissionController", "autoscaling", "enabled"); on {
			r.autoscaling = true
			r.path = []string{"admissionController", "autoscaling", "minReplicas"}
		} else {
			r.path = []string{"admissionController", "replicas"}
		}
	case 2:
		r.path = []string{"replicaCount"}
	default:
		return r, false
	}
	n, _ := v.effective(r.path...)
	if n == nil {
		r.count = 1
		return r, true
	}
	c, ok := v.effInt(r.path...)
	if !ok {
		return r, false
	}
	r.count, r.set = c, true
	return r, true
}
