package checks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRefsIsSortStableFunc checks sortRefs against
// slices.SortStableFunc on references in order, out of order within the
// files (as a run's come) and out of order across files and pieces, with
// references that compare equal (whose order must stay theirs).
func TestSortRefsIsSortStableFunc(t *testing.T) {
	n := 3*sortedShare + 17
	fs := make([]Finding, n)
	for i := range fs {
		// Two findings of each line of a file, equal in order.
		fs[i] = Finding{RuleID: "r", File: fmt.Sprintf("f%06d.yaml", i/6), Line: 1 + (i%6)/2}
	}
	sorted := make([]leanRef, n)
	for i := range fs {
		sorted[i] = refOfFull(&fs[i])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	withinFiles := slices.Clone(sorted)
	for start := 0; start < n; start += 6 {
		file := withinFiles[start:min(n, start+6)]
		rng.Shuffle(len(file), func(i, j int) { file[i], file[j] = file[j], file[i] })
	}
	swapped := func(i int) []leanRef {
		out := slices.Clone(sorted)
		out[i], out[i+1] = out[i+1], out[i]
		return out
	}
	across := slices.Clone(sorted)
	rng.Shuffle(n, func(i, j int) { across[i], across[j] = across[j], across[i] })
	cases := map[string][]leanRef{
		"sorted":            sorted,
		"short":             slices.Clone(withinFiles[:10]),
		"within files":      withinFiles,
		"swap at a piece":   swapped(sortedShare - 1),
		"swap in last":      swapped(n - 2),
		"files out of turn": slices.Concat(sorted[2*sortedShare:], sorted[:2*sortedShare]),
		"shuffled":          across,
		"empty":             nil,
	}
	for name, rs := range cases {
		want := slices.Clone(rs)
		slices.SortStableFunc(want, compareRefs)
		got := slices.Clone(rs)
		sortRefs(got)
		for i := range want {
			if got[i].full != want[i].full {
				t.Errorf("%s: reference %d is %s:%d (%p), slices.SortStableFunc puts %s:%d (%p) there", name, i, got[i].full.File, got[i].full.Line, got[i].full, want[i].full.File, want[i].full.Line, want[i].full)
				break
			}
		}
	}
}
