package catalog_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// customKind is a custom-resource workload written in place of a built-in
// one: same body, another apiVersion and kind (so every line stays where it
// was).
type customKind struct {
	name, from, apiVersion, kind string
	// skipped are the rules the kind's controller makes moot, and why.
	skipped map[string]string
}

var knativeSkips = map[string]string{
	"prestop-hook-missing":          "Knative's queue-proxy drains the pods; Knative refuses lifecycle hooks",
	"spread-missing":                "Knative's autoscaler decides the pod count: no replicas to spread",
	"spread-zone-missing":           "Knative's autoscaler decides the pod count: no replicas to spread",
	"rwo-volume-shared-by-replicas": "no replicas field",
}

var customKinds = []customKind{
	{name: "Rollout", from: "Deployment", apiVersion: "argoproj.io/v1alpha1", kind: "Rollout"},
	{name: "CloneSet", from: "Deployment", apiVersion: "apps.kruise.io/v1alpha1", kind: "CloneSet"},
	{name: "KnativeService", from: "Deployment", apiVersion: "serving.knative.dev/v1", kind: "Service", skipped: knativeSkips},
	{name: "AdvancedStatefulSet-v1alpha1", from: "StatefulSet", apiVersion: "apps.kruise.io/v1alpha1", kind: "StatefulSet"},
	{name: "AdvancedStatefulSet-v1beta1", from: "StatefulSet", apiVersion: "apps.kruise.io/v1beta1", kind: "StatefulSet"},
}

// rewrite writes a built-in workload's apiVersion and kind as the custom
// kind's: the object's own lines, and a scaleTargetRef's (block or flow
// style), so an HPA follows its workload.
func (ck customKind) rewrite(data []byte) []byte {
	block := regexp.MustCompile(`(?m)^(?P<indent>[ \t]*)apiVersion: apps/v1\n[ \t]*kind: ` + ck.from + `(?P<rest>[ \t]*(#.*)?)$`)
	flow := regexp.MustCompile(`apiVersion: apps/v1, kind: ` + ck.from + `\b`)
	data = block.ReplaceAll(data, []byte("${indent}apiVersion: "+ck.apiVersion+"\n${indent}kind: "+ck.kind+"${rest}"))
	return flow.ReplaceAll(data, []byte("apiVersion: "+ck.apiVersion+", kind: "+ck.kind))
}

// podFinding keys a finding about a pod template: rule, object, path, line.
type podFinding struct {
	rule, file, name, path string
	line                   int
}

// TestEveryPodRuleRunsOnEveryCustomWorkload rewrites every rule fixture's
// Deployments (StatefulSets) as each custom-resource workload that behaves
// like one, and holds every finding the built-in kind gets in its pod
// template to the custom kind: same rule, same path, same line, a fix where
// the built-in kind has one (unless the custom kind's controller refuses
// the field, which the message says), and every fix applies and makes its
// finding go away.
func TestEveryPodRuleRunsOnEveryCustomWorkload(t *testing.T) {
	dirs, err := os.ReadDir(checkstest.RulesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.Default()
	fired := map[string]map[string]bool{} // kind → rules seen firing on it
	for _, ck := range customKinds {
		fired[ck.name] = map[string]bool{}
		for _, d := range dirs {
			if !d.IsDir() {
				continue
			}
			dir := filepath.Join(checkstest.RulesDir(t), d.Name())
			cfg, inputs := checkstest.Load(t, cat, dir)
			var variant []checks.Input
			rewritten := false
			for _, in := range inputs {
				data := ck.rewrite(in.Data)
				if strings.Contains(string(in.Data), "workloadRef") {
					data = in.Data // a Rollout's workloadRef names its Deployment: rewritten, it would name nothing
				}
				rewritten = rewritten || string(data) != string(in.Data)
				variant = append(variant, checks.Input{Path: in.Path, Data: data})
			}
			if !rewritten {
				continue
			}
			t.Run(ck.name+"/"+d.Name(), func(t *testing.T) {
				before := checks.Run(inputs, cfg, checks.Options{}).Findings
				after := checks.Run(variant, cfg, checks.Options{}).Findings
				got := map[podFinding]checks.Finding{}
				for _, f := range after {
					if strings.HasPrefix(f.Path, "spec.template") {
						got[podFinding{f.RuleID, f.File, f.Object.Name, f.Path, f.Line}] = f
					}
				}
				for _, f := range before {
					// A repository's policy matches the resources it names
					// (deployments), not the custom kinds that behave alike.
					if f.Object.Kind != ck.from || !strings.HasPrefix(f.Path, "spec.template") || ck.skipped[f.RuleID] != "" || strings.HasPrefix(f.RuleID, "policy/") {
						continue
					}
					key := podFinding{f.RuleID, f.File, f.Object.Name, f.Path, f.Line}
					g, ok := got[key]
					if !ok {
						t.Errorf("%s:%d %s on %s %s (%s) is not reported on the %s", filepath.Base(f.File), f.Line, f.RuleID, f.Object.Kind, f.Object.Name, f.Path, ck.name)
						continue
					}
					fired[ck.name][f.RuleID] = true
					if f.Fixable() && !g.Fixable() && !strings.Contains(g.Message, "Knative Serving refuses") {
						t.Errorf("%s:%d %s has a fix on the %s but none on the %s: %s", filepath.Base(f.File), f.Line, f.RuleID, ck.from, ck.name, g.Message)
					}
					// The fix must resolve the finding on the custom kind as
					// on the built-in one (a fix that leaves placeholders to
					// fill in, recommended-labels-missing's, resolves neither).
					if g.Fixable() && len(g.Fix.Edits) > 0 && !fixResolves(t, variant, cfg, g) && (!f.Fixable() || len(f.Fix.Edits) == 0 || fixResolves(t, inputs, cfg, f)) {
						t.Errorf("after the fix of %s:%d %s on the %s (%s), the finding stays or the object no longer reads", filepath.Base(g.File), g.Line, g.RuleID, ck.name, g.Fix.Description)
					}
				}
			})
		}
	}
	// Guard against a rewrite that matches nothing: every kind must have
	// met most pod rules.
	for _, ck := range customKinds {
		rules := fired[ck.name]
		if min := map[string]int{"Deployment": 30, "StatefulSet": 12}[ck.from]; len(rules) < min {
			names := make([]string, 0, len(rules))
			for r := range rules {
				names = append(names, r)
			}
			sort.Strings(names)
			t.Errorf("only %d pod rules compared on %s: %v", len(rules), ck.name, names)
		}
	}
}

// fixResolves applies f's fix and checks again: whether the finding is
// gone and the object still reads.
func fixResolves(t *testing.T, inputs []checks.Input, cfg *checks.Config, f checks.Finding) bool {
	t.Helper()
	fixed := checkstest.ApplyFix(t, inputs, f)
	for _, g := range checks.Run(fixed, cfg, checks.Options{}).Findings {
		if g.File != f.File || g.Object != f.Object {
			continue
		}
		if g.RuleID == "schema-invalid" || g.RuleID == "yaml-invalid" || (g.RuleID == f.RuleID && g.Path == f.Path && g.Message == f.Message) {
			return false
		}
	}
	return true
}
