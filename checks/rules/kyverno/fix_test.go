package kyverno

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/edit"
)

// TestKyvFixesMakeRulesPass applies every fix this family suggests on its
// fixtures (to the document's node tree, a stand-in for package edit's text
// edits) and checks that the rule no longer fires there, and that the
// document still parses.
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
			fixed, err := applyFix(inputs, f)
			if err != nil {
				t.Errorf("%s: applying the fix: %v", name, err)
				continue
			}
			after := checks.Run(fixed, cfg, checks.Options{})
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

// applyFix returns inputs with f's fix applied to its document by the
// edit engine.
func applyFix(inputs []checks.Input, f checks.Finding) ([]checks.Input, error) {
	out := append([]checks.Input{}, inputs...)
	for i, in := range out {
		if in.Path != f.File {
			continue
		}
		data, err := edit.Apply(in.Data, f.Object.Doc, f.Fix.Edits)
		if err != nil {
			return nil, err
		}
		out[i] = checks.Input{Path: in.Path, Data: data}
		return out, nil
	}
	return nil, fmt.Errorf("file %s not found", f.File)
}
