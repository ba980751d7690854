package network_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// naApplyOps applies edit ops to document doc of src with the edit engine.
func naApplyOps(t *testing.T, src []byte, doc int, ops []edit.Op) []byte {
	t.Helper()
	out, err := edit.Apply(src, doc, ops)
	if err != nil {
		t.Fatalf("fix does not apply: %v", err)
	}
	return out
}

// TestFixesResolveNetworkAccess applies every fix that this family's rules
// suggest on their fixtures, checks again, and requires that the finding is
// gone and that the object still decodes strictly (the API server accepts it).
func TestFixesResolveNetworkAccess(t *testing.T) {
	rules := []string{"api-removed", "api-deprecated", "job-ttl-missing", "apiserver-insecure-flag", "apiserver-audit-log"}
	for _, rule := range rules {
		dir := filepath.Join(checkstest.RulesDir(t), rule)
		cfg, err := checks.LoadConfig(filepath.Join(dir, checks.ConfigFileName), catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		inputs, err := checks.Load([]string{dir}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := checks.Run(inputs, cfg, checks.Options{})
		fixes := 0
		for _, f := range res.Findings {
			if f.RuleID != rule || f.Fix == nil {
				continue
			}
			fixes++
			t.Run(rule+"/"+filepath.Base(f.File)+":"+strconv.Itoa(f.Line), func(t *testing.T) {
				var changed []checks.Input
				for _, in := range inputs {
					if in.Path == f.File {
						in = checks.Input{Path: in.Path, Data: naApplyOps(t, in.Data, f.Object.Doc, f.Fix.Edits)}
					}
					changed = append(changed, in)
				}
				for _, g := range checks.Run(changed, cfg, checks.Options{}).Findings {
					if g.File != f.File || g.Object.Kind != f.Object.Kind || g.Object.Name != f.Object.Name {
						continue
					}
					if g.RuleID == "schema-invalid" || g.RuleID == "yaml-invalid" {
						t.Errorf("after the fix %q the object no longer decodes: %s", f.Fix.Description, g.Message)
					}
					if g.RuleID == rule && g.Path == f.Path && g.Message == f.Message {
						t.Errorf("the fix %q did not resolve: %s", f.Fix.Description, g.Message)
					}
				}
			})
		}
		if fixes == 0 {
			t.Errorf("no fix among the %s fixture findings", rule)
		}
	}
}
