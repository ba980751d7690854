package kyverno

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/manifest"
)

var kyvernoSpread = &checks.Rule{
	ID:       "kyverno-spread",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kyverno.io/docs/installation/#high-availability-installation",
	Why:      "the Kyverno admission controller has no topologySpreadConstraints and its anti-affinity is disabled, so all replicas may land on one node",
	Help:     "Do not put all the eggs in one basket. The inserted constraint selects only the admission controller's pods (a selector on app.kubernetes.io/instance alone would match all four Kyverno controllers) and uses ScheduleAnyway so a small cluster still schedules them.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, v := range haValues(ctx, obj) {
			pre := []string{}
			antiKey := "enable"
			if v.Gen == 3 {
				pre = []string{"admissionController"}
				antiKey = "enabled"
			}
			at := func(elems ...string) []string { return append(append([]string{}, pre...), elems...) }
			if n, _ := v.effective(at("topologySpreadConstraints")...); n != nil && n.Kind == yaml.SequenceNode && len(n.Content) > 0 {
				continue
			}
			if n, _ := v.effective(at("topologySpreadConstraints")...); n != nil && n.Kind == yaml.ScalarNode {
				continue // a template expression: cannot tell
			}
			anti, ok := v.effBool(at("antiAffinity", antiKey)...)
			if n, _ := v.effective(at("antiAffinity", antiKey)...); n != nil && !ok {
				continue // a placeholder (${VAR}, a template): cannot tell
			}
			paa, _ := v.effective(at("podAntiAffinity")...)
			if anti && paa != nil && (paa.Kind != yaml.MappingNode || len(paa.Content) > 0) {
				continue
			}
			path := v.p(at("topologySpreadConstraints")...)
			why := "the pod anti-affinity is disabled"
			if v.node(at("antiAffinity", antiKey)...) != nil {
				path = v.p(at("antiAffinity", antiKey)...)
			} else if anti {
				why = "podAntiAffinity is empty"
			}
			f := checks.At(v.o(obj), path, fmt.Sprintf("the Kyverno admission controller has no topologySpreadConstraints and %s (%s): all replicas may run on one node and fail together; spread them across nodes", why, v.kyvWhere()))
			out = append(out, f.WithFix("spread the admission controller's pods across nodes", checks.SetOp(v.p(at("topologySpreadConstraints")...), spreadValue(v))))
		}
		return out
	},
}

// spreadValue is the hostname spread constraint for the values'
// admission-controller pods. Chart 3.9 passes the value through tpl (seen in
// its deployment template), so the release name resolves there; for other
// 3.x versions that is not verified, and a literal "{{ … }}" label value
// would be rejected by the API server, so the selector keeps only the
// component label. 2.x pods carry app.kubernetes.io/name: kyverno.
func spreadValue(v *values) string {
	sel := "        app.kubernetes.io/component: admission-controller\n"
	switch {
	case v.Gen == 2:
		sel = "        app.kubernetes.io/name: kyverno\n"
	case v.kyvAtLeast(3, 9):
		sel += "        app.kubernetes.io/instance: '{{ .Release.Name }}'\n"
	}
	return "- maxSkew: 1\n  topologyKey: kubernetes.io/hostname\n  whenUnsatisfiable: ScheduleAnyway\n  labelSelector:\n    matchLabels:\n" + sel
}
