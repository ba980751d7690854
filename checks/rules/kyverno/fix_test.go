package kyverno

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/checkstest"
)

// TestKyvFixesMakeRulesPass applies every fix this family suggests on its
// fixtures with the edit engine (checkstest.ApplyFix) and checks that the
// rule no longer fires there, and that the document still parses.
func TestKyvFixesMakeRulesPass(t *testing.T) {
	dirs, err := os.ReadDir("../../../fixtures/rules")
	if err != nil {
		t.Fatal(err)
	}
	fixes := 0
	for _, d := range dirs {
		if !d.IsDir() || !familyRules[d.Name()] {
			continue
		}
		dir := filepath.Join("../../../fixtures/rules", d.Name())
		cfg, inputs := checkstest.Load(t, sectionCatalog, dir)
		res := checks.Run(inputs, cfg, checks.Options{})
		for _, f := range res.Findings {
			if !familyRules[f.RuleID] || f.Fix == nil {
				continue
			}
			fixes++
			name := fmt.Sprintf("%s:%d %s", f.File, f.Line, f.RuleID)
			after := checks.Run(checkstest.ApplyFix(t, inputs, f), cfg, checks.Options{})
			for _, g := range after.Findings {
				if g.RuleID == f.RuleID && g.File == f.File && g.Object.Doc == f.Object.Doc && g.Path == f.Path {
					t.Errorf("%s: still fires after its fix %q: %s", name, f.Fix.Description, g.Message)
				}
				if g.RuleID == "yaml-invalid" && g.File == f.File {
					t.Errorf("%s: the fix breaks the YAML: %s", name, g.Message)
				}
			}
		}
	}
	if fixes < 10 {
		t.Errorf("only %d fixes exercised", fixes)
	}
}
