package kyverno

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoResources = &checks.Rule{
	ID:       "kyverno-resources",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kyverno.io/docs/installation/scaling/",
	Why:      "the Kyverno admission controller lacks a memory request and limit or a CPU request, or its memory limit is below 512Mi (a starting point: 100m/256Mi requests, 512Mi limit)",
	Help:     "Values are judged after Helm merges them over the chart's defaults (whose 384Mi memory limit is below the suggested 512Mi). No CPU limit is suggested: see cpu-limit-set. Large clusters need 1Gi or more.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range haValues(ctx, obj) {
			res := []string{"resources"}
			if v.Gen == 3 {
				res = []string{"admissionController", "container", "resources"}
			}
			if f, ok := resourcesFinding(obj, v, res, "the Kyverno admission controller", resourceTargets{cpu: "100m", mem: "256Mi", limit: "512Mi"}); ok {
				out = append(out, f)
			}
		}
		return out
	},
}

// resourceTargets are the values a resources fix inserts.
type resourceTargets struct {
	cpu, mem, limit string
	// noMin skips the minimum-limit check (only a missing limit counts).
	noMin bool
}

// resourcesFinding judges the effective resources at res and returns a
// finding with the fix that inserts what is missing.
func resourcesFinding(obj *manifest.Object, v *values, res []string, who string, t resourceTargets) (checks.Finding, bool) {
	at := func(elems ...string) []string { return append(append([]string{}, res...), elems...) }
	q := func(elems ...string) (resource.Quantity, bool, bool) {
		n, _ := v.effective(at(elems...)...)
		if n == nil || n.Value == "" {
			return resource.Quantity{}, false, true
		}
		qv, err := resource.ParseQuantity(strings.TrimSpace(n.Value))
		if err != nil {
			return resource.Quantity{}, true, false // a template expression: cannot judge
		}
		return qv, true, true
	}
	cpuReq, hasCPU, ok1 := q("requests", "cpu")
	memReq, hasMem, ok2 := q("requests", "memory")
	memLim, hasLim, ok3 := q("limits", "memory")
	_ = cpuReq
	if !ok1 || !ok2 || !ok3 {
		return checks.Finding{}, false
	}
	minLimit := resource.MustParse(t.limit)
	lowLimit := !t.noMin && hasLim && memLim.Cmp(minLimit) < 0
	if hasCPU && hasMem && hasLim && !lowLimit {
		return checks.Finding{}, false
	}
	var missing []string
	var ops []edit.Op
	if !hasCPU {
		missing = append(missing, "a CPU request")
		ops = append(ops, checks.SetOp(v.p(at("requests", "cpu")...), t.cpu))
	}
	if !hasMem {
		missing = append(missing, "a memory request")
		ops = append(ops, checks.SetOp(v.p(at("requests", "memory")...), t.mem, "cpu"))
		memReq = resource.MustParse(t.mem)
	}
	limit := minLimit
	if memReq.Cmp(limit) > 0 {
		limit = memReq
	}
	if !hasLim {
		missing = append(missing, "a memory limit")
		ops = append(ops, checks.SetOp(v.p(at("limits", "memory")...), limit.String()))
	} else if lowLimit {
		missing = append(missing, fmt.Sprintf("a memory limit of at least %s (it is %s)", t.limit, memLim.String()))
		ops = append(ops, checks.SetOp(v.p(at("limits", "memory")...), limit.String()))
	}
	for i := range ops {
		ops[i].Comment = "starting point; adjust to the cluster's size"
	}
	// Point at the first missing value's path: At lands on its nearest
	// existing parent (a nulled requests: key, or the block to fill).
	var path manifest.Path
	switch {
	case !hasCPU:
		path = v.p(at("requests", "cpu")...)
	case !hasMem:
		path = v.p(at("requests", "memory")...)
	default:
		path = v.p(at("limits", "memory")...)
	}
	msg := fmt.Sprintf("%s lacks %s (%s, after the chart's defaults): it checks every API request and caches cluster objects, so too little memory means OOM kills and a stalled admission path; use requests %s/%s and a %s memory limit (1Gi or more for large clusters) as a starting point", who, strings.Join(missing, ", "), v.kyvWhere(), t.cpu, t.mem, t.limit)
	return checks.At(v.o(obj), path, msg).WithFix("insert "+strings.Join(missing, ", ")+" (starting point)", ops...), true
}
