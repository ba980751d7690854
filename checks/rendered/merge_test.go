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

// TestMergeRendersKeepsOneRendersObjectsApart: one values line sets a
// chart's mutating and validating webhooks (and a third object), so each
// render of the chart makes three findings there with one message. They
// are three findings, each naming both renders, not one naming the first
// render again and again.
func TestMergeRendersKeepsOneRendersObjectsApart(t *testing.T) {
	mk := func(kind, about string) checks.Finding {
		return checks.Finding{RuleID: "r", File: "c/values.yaml", Line: 2, Message: "slow (rendered from the " + about + ")", Object: checks.ObjectRef{Kind: kind, Name: "hooks"}}
	}
	const a, b = "chart c", "chart c; with ci/x-values.yaml"
	got := rendered.MergeRenders([]checks.Finding{mk("Mutating", a), mk("Validating", a), mk("Other", a), mk("Mutating", b), mk("Validating", b), mk("Other", b)}, 0)
	if len(got) != 3 {
		t.Fatalf("merged into %d findings, want 3: %+v", len(got), got)
	}
	for i, kind := range []string{"Mutating", "Validating", "Other"} {
		if want := "slow (rendered from the " + a + ", the " + b + ")"; got[i].Object.Kind != kind || got[i].Message != want {
			t.Errorf("finding %d: %s %q, want %s %q", i, got[i].Object.Kind, got[i].Message, kind, want)
		}
	}
}

// TestNameObjects: findings of two objects at one line with one message
// begin with their objects; one object's findings, or findings at other
// lines, keep their messages.
func TestNameObjects(t *testing.T) {
	mk := func(kind string, line int) checks.Finding {
		return checks.Finding{RuleID: "r", File: "c/values.yaml", Line: line, Message: "slow", Object: checks.ObjectRef{Kind: kind, Name: "hooks"}}
	}
	fs := []checks.Finding{mk("Mutating", 2), mk("Validating", 2), mk("Mutating", 3), mk("Mutating", 4), mk("Mutating", 4)}
	rendered.NameObjects(fs)
	want := []string{"Mutating hooks: slow", "Validating hooks: slow", "slow", "slow", "slow"}
	for i, f := range fs {
		if f.Message != want[i] {
			t.Errorf("finding %d: %q, want %q", i, f.Message, want[i])
		}
	}
}

// TestMergeRendersKeepsTheOtherObjects: a finding merged from overlays
// whose objects differ (their name prefixes) stands for each object, the
// first its Object and the others Merged, once each; the renders of one
// object (a chart's values sets) add none.
func TestMergeRendersKeepsTheOtherObjects(t *testing.T) {
	mk := func(name, about string, doc int) checks.Finding {
		return checks.Finding{RuleID: "r", File: "base/d.yaml", Line: 3, Message: "bad (rendered from the " + about + ")", Object: checks.ObjectRef{Kind: "Deployment", Name: name, Doc: doc}}
	}
	got := rendered.MergeRenders([]checks.Finding{mk("prod-web", "overlay prod", 0), mk("staging-web", "overlay staging", 1), mk("prod-web", "overlay prod-eu", 2)}, 0)
	if len(got) != 1 || got[0].Object.Name != "prod-web" || len(got[0].Merged) != 1 || got[0].Merged[0].Name != "staging-web" {
		t.Fatalf("merged: %+v", got)
	}
	if keys := got[0].MergedKeys(); len(keys) != 1 || keys[0] != mk("staging-web", "overlay staging", 1).FingerprintKey() {
		t.Errorf("MergedKeys = %v, want staging-web's key", keys)
	}
}
