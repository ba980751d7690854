package rendered_test

import (
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/rendered"
)

// TestMergeRenders: the same finding from two overlays is one, naming both.
func TestMergeRenders(t *testing.T) {
	a := checks.Finding{RuleID: "r", File: "base/d.yaml", Line: 3, Message: "bad (rendered from the overlay prod)"}
	b := a
	b.Message = "bad (rendered from the overlay staging)"
	c := a
	c.Line = 4
	got := rendered.MergeRenders([]checks.Finding{a, b, c}, 0)
	if len(got) != 2 || got[0].Message != "bad (rendered from the overlay prod, the overlay staging)" || got[1].Message != a.Message {
		t.Errorf("merged: %+v", got)
	}
	if got := rendered.MergeRenders([]checks.Finding{a, b, c}, 1); got[0].Message != "bad (rendered from the overlay prod and 1 more)" {
		t.Errorf("merged naming one render: %q", got[0].Message)
	}
}

// TestMergeRendersKeepsEdits: when one of the merged findings carries a
// fix verified as an edit of its file (a values line) and the first does
// not, the merged finding carries it, so its comment has the suggestion.
func TestMergeRendersKeepsEdits(t *testing.T) {
	a := checks.Finding{RuleID: "r", File: "c/values.yaml", Line: 3, Message: "bad (rendered from the chart c; with ci/x-values.yaml)", Fix: &checks.Fix{Description: "d"}, Object: checks.ObjectRef{Doc: 2}}
	b := a
	b.Message = "bad (rendered from the chart c)"
	b.Fix = &checks.Fix{Description: "d", Edits: []edit.Op{{Action: edit.Set, Path: []string{"replicaCount"}, Value: "3"}}}
	b.Object.Doc = 0
	got := rendered.MergeRenders([]checks.Finding{a, b}, 0)
	if len(got) != 1 || got[0].Fix == nil || len(got[0].Fix.Edits) != 1 || got[0].Object.Doc != 0 {
		t.Errorf("merged: %+v", got)
	}
}
