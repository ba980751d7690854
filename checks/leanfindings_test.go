package checks_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/manifest"
)

// TestLeanFindingsAreTheRunsFindings holds a run that hands its findings
// over as LeanFindings (Options.LeanFindings, a review's head) to the same
// run handing them over as Findings, each with a lean memo as the bot's
// reviews keep: on the fixtures and the corpus, a first run (everything
// learnt), again on the same files (recalled from the memo, lean) and on
// the files less every fifth one (learnt again in part). Its findings,
// silenced findings and unchecked notes are the same, and so are its
// findings numbered across files (NumberOccurrences).
func TestLeanFindingsAreTheRunsFindings(t *testing.T) {
	cfg := checks.DefaultConfig(catalog.Default())
	for name, inputs := range memoInputs(t) {
		t.Run(name, func(t *testing.T) {
			memo := &mapMemo{m: map[*manifest.Object]*checks.Remembered{}, lean: checks.NewCompactor()}
			wantMemo := &mapMemo{m: map[*manifest.Object]*checks.Remembered{}, lean: checks.NewCompactor()}
			run := func(inputs []checks.Input) (got, want *checks.Result) {
				got = checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees, Memo: memo, LeanFindings: true})
				want = checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees, Memo: wantMemo})
				return got, want
			}
			check := func(step string, got, want *checks.Result) {
				t.Helper()
				if len(got.Findings) != 0 || got.Lean == nil {
					t.Fatalf("%s: %d findings handed over as Findings, lean %v", step, len(got.Findings), got.Lean != nil)
				}
				if len(want.Findings) == 0 {
					t.Fatalf("%s: no findings to compare", step)
				}
				lean := got.Lean
				got.Findings, got.Lean = lean.All(), nil
				sameResults(t, step, got, want)
				for i := range min(lean.Len(), len(want.Findings)) {
					if !reflect.DeepEqual(lean.At(i), want.Findings[i]) {
						t.Fatalf("%s: At(%d) is %s, the run's finding %s", step, i, describe(lean.At(i)), describe(want.Findings[i]))
					}
				}
				lean.NumberOccurrences()
				across := slices.Clone(want.Findings)
				checks.NumberOccurrences(across)
				if all := lean.All(); !reflect.DeepEqual(all, across) {
					t.Errorf("%s: numbered across files, the lean findings differ from the run's", step)
				}
			}
			// Both runs of each step check the same parsed files, as the
			// bot's parse cache hands them over, so both memos recall.
			parsed, fewer := reparsed(checks.Run(inputs, cfg, checks.Options{Memory: checks.PackTrees}))
			for i, step := range []struct {
				name   string
				inputs []checks.Input
			}{{"first run", parsed}, {"same files", parsed}, {"a fifth of the files gone", fewer}} {
				before := memo.recalled
				got, want := run(step.inputs)
				if i > 0 && memo.recalled == before {
					t.Errorf("%s: the memo recalled nothing", step.name)
				}
				check(step.name, got, want)
			}
		})
	}
}
