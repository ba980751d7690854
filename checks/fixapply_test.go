package checks_test

import (
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// applyFix returns inputs with f's fix applied to f's document by the real
// edit engine, as `prodready fix` and the suggestions apply it.
func applyFix(t *testing.T, inputs []checks.Input, f checks.Finding) []checks.Input {
	t.Helper()
	out := append([]checks.Input(nil), inputs...)
	for i, in := range out {
		if in.Path != f.File {
			continue
		}
		data, err := edit.Apply(in.Data, f.Object.Doc, f.Fix.Edits)
		if err != nil {
			t.Fatalf("%s:%d %s: fix does not apply: %v", f.File, f.Line, f.RuleID, err)
		}
		out[i] = checks.Input{Path: in.Path, Data: data}
		return out
	}
	t.Fatalf("file %s of the finding is not among the inputs", f.File)
	return nil
}
