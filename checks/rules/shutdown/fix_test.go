package shutdown_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// TestSdFixesMakeRulesPass applies every fix of the shutdown, labels and
// logging/state rules to their fixtures with the edit engine and checks the rule
// again: an object whose findings all had fixes must not be reported again
// (but for the recommended labels, which wait for the placeholders' values),
// and the fixed documents must still decode into their Kubernetes types
// (no schema-invalid finding).
func TestSdFixesMakeRulesPass(t *testing.T) {
	for _, rule := range []string{
		"prestop-hook-missing", "termination-grace-too-short", "shell-wrapped-entrypoint",
		"recommended-labels-missing", "template-labels-not-propagated",
		"hpa-min-replicas-too-low", "vpa-auto-update",
	} {
		t.Run(rule, func(t *testing.T) {
			dir := filepath.Join(checkstest.RulesDir(t), rule)
			cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
			res := checks.Run(inputs, cfg, checks.Options{})
			type objKey struct{ file, kind, name string }
			fixed := map[objKey]bool{}
			unfixable := map[objKey]bool{}
			data := map[string][]byte{}
			for _, in := range inputs {
				data[in.Path] = in.Data
			}
			for _, f := range res.Findings {
				if f.RuleID != rule {
					continue
				}
				k := objKey{f.File, f.Object.Kind, f.Object.Name}
				if f.Fix == nil {
					unfixable[k] = true
					continue
				}
				fixed[k] = true
				out, err := edit.Apply(data[f.File], f.Object.Doc, f.Fix.Edits)
				if err != nil {
					t.Fatalf("%s:%d: the fix does not apply: %v", f.File, f.Line, err)
				}
				data[f.File] = out
			}
			if len(fixed) == 0 {
				t.Fatal("no fix in the fixture: the test proves nothing")
			}
			var after []checks.Input
			for _, in := range inputs {
				after = append(after, checks.Input{Path: in.Path, Data: data[in.Path]})
			}
			for _, f := range checks.Run(after, cfg, checks.Options{}).Findings {
				k := objKey{f.File, f.Object.Kind, f.Object.Name}
				if rule == "recommended-labels-missing" && f.Fix == nil && strings.Contains(f.Message, "metadata.labels, and they can be copied") {
					// By design: the fix puts placeholders on the workload's
					// metadata, never in the pod template, and the finding
					// waits, with no fix, for their real values.
					continue
				}
				if f.RuleID == rule && fixed[k] && !unfixable[k] {
					t.Errorf("after the fix, %s still fires on %s %s/%s: %s", rule, f.File, f.Object.Kind, f.Object.Name, f.Message)
				}
				if f.RuleID == "schema-invalid" && fixed[k] {
					t.Errorf("the fix made %s %s/%s invalid: %s", f.File, f.Object.Kind, f.Object.Name, f.Message)
				}
			}
		})
	}
}
