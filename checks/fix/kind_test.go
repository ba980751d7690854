package fix_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestFixKinds checks, on every rule fixture, that each fix says which kind
// it is, and that an exact fix never carries what marks a guess: a
// description or an edit comment that speaks of a starting point or a
// placeholder. Exact fixes are what prodready fix applies unasked.
func TestFixKinds(t *testing.T) {
	dirs, err := filepath.Glob("../../fixtures/rules/*")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[checks.FixKind]int{}
	for _, dir := range dirs {
		cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
		for _, f := range checks.Run(inputs, cfg, checks.Options{}).Findings {
			if f.Fix == nil {
				continue
			}
			kinds[f.Fix.Kind]++
			switch f.Fix.Kind {
			case checks.Exact:
				guess := strings.Contains(f.Fix.Description, "starting point")
				for _, op := range f.Fix.Edits {
					guess = guess || strings.Contains(op.Comment, "starting point") || strings.Contains(op.Comment, "placeholder")
				}
				if guess {
					t.Errorf("%s:%d %s: an exact fix that marks a guess: %+v", f.File, f.Line, f.RuleID, f.Fix)
				}
			case checks.StartingPoint:
			default:
				t.Errorf("%s:%d %s: fix of kind %q", f.File, f.Line, f.RuleID, f.Fix.Kind)
			}
		}
	}
	if kinds[checks.Exact] == 0 || kinds[checks.StartingPoint] == 0 {
		t.Errorf("fix kinds on the fixtures: %v, want both", kinds)
	}
}
