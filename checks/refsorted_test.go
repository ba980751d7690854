package checks

import (
	"fmt"
	"slices"
	"testing"
)

// TestRefsSortedAgreesWithIsSorted checks refsSorted against
// slices.IsSortedFunc on references in order and out of order, within a
// piece and across the boundary of two pieces.
func TestRefsSortedAgreesWithIsSorted(t *testing.T) {
	n := 3*sortedShare + 17
	fs := make([]Finding, n)
	for i := range fs {
		fs[i] = Finding{RuleID: "r", File: fmt.Sprintf("f%06d.yaml", i/3), Line: 1 + i%3}
	}
	refs := make([]leanRef, n)
	for i := range fs {
		refs[i] = refOfFull(&fs[i])
	}
	swapped := func(i int) []leanRef {
		out := slices.Clone(refs)
		out[i], out[i+1] = out[i+1], out[i]
		return out
	}
	cases := map[string][]leanRef{
		"sorted":            refs,
		"short":             refs[:10],
		"swap within":       swapped(100),
		"swap at boundary":  swapped(sortedShare - 1),
		"swap in last":      swapped(n - 2),
		"swap second piece": swapped(sortedShare),
	}
	for name, rs := range cases {
		want := slices.IsSortedFunc(rs, compareRefs)
		if got := refsSorted(rs); got != want {
			t.Errorf("%s: refsSorted = %v, slices.IsSortedFunc = %v", name, got, want)
		}
	}
	if !refsSorted(refs) || refsSorted(swapped(sortedShare-1)) {
		t.Error("refsSorted misjudges sorted or boundary-swapped references")
	}
}
