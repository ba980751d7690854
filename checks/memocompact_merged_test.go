package checks

import (
	"reflect"
	"testing"
)

// TestFindingTableKeepsTheObjectsAFindingStandsFor: a kept run's finding
// merged from overlays keeps the other objects (a review of a later push
// compares with them), lean, with the findings beside it lean too.
func TestFindingTableKeepsTheObjectsAFindingStandsFor(t *testing.T) {
	merged := []ObjectRef{{Group: "apps", Kind: "Deployment", Name: "staging-web", Namespace: "shop", Doc: 1}, {Kind: "Pod", Name: "x\x01y", Doc: -1}}
	fs := []Finding{
		{RuleID: "a", File: "base/d.yaml", Line: 3, Object: ObjectRef{Group: "apps", Kind: "Deployment", Name: "prod-web"}, Merged: merged},
		{RuleID: "b", File: "base/d.yaml", Line: 4, Object: ObjectRef{Group: "apps", Kind: "Deployment", Name: "prod-web"}},
	}
	tbl := NewFindingTable(fs)
	if len(tbl.l.lean) != 2 {
		t.Fatalf("the table keeps %d lean and %d full findings, want 2 lean", len(tbl.l.lean), len(tbl.l.full))
	}
	if got := tbl.At(0).Merged; !reflect.DeepEqual(got, merged) {
		t.Errorf("Merged = %+v, want %+v", got, merged)
	}
	if got := tbl.At(1).Merged; got != nil {
		t.Errorf("the other finding stands for %+v", got)
	}
}
