package fix

import (
	"bytes"
	"path"
	"sort"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/parallel"
)

// MaxRounds bounds Converge. Fix chains of plain files are two or three
// long; a chart's fixes are verified by rendering it again within a bound
// of renders per round (rendered.MaxVerifyRenders), so a chart with many
// findings is fixed over more rounds (four for fixtures/render/helm-fix).
const MaxRounds = 8

// Outcome is what Converge did.
type Outcome struct {
	// Fixed are the findings whose fixes were applied, over all rounds.
	Fixed []checks.Finding
	// Failed are fixes that could not be applied, with why.
	Failed []FailedFix
	// Remaining are the findings left after the last round (those without
	// an automatic fix, and those that failed).
	Remaining []checks.Finding
	// Rounds is the number of rounds that changed something.
	Rounds int
	// Converged is false when MaxRounds ran out while fixes still changed
	// the text (a bug in a rule's fix, worth a report).
	Converged bool
}

// FailedFix is a finding whose fix did not apply.
type FailedFix struct {
	Finding checks.Finding
	Err     error
}

// Converge checks inputs, applies every fix that keep accepts, and checks
// again, until a round changes nothing. Some fixes are offered only once
// another is in place (a zone spread constraint after the node one), so one
// round is not always enough for a file that checks clean of fixable findings.
// It returns the new contents in input order.
func Converge(inputs []checks.Input, cfg *checks.Config, keep func(checks.Finding) bool) ([]checks.Input, Outcome) {
	return ConvergeWith(inputs, func(cur []checks.Input) []checks.Finding {
		// Only the findings are needed: the lean run holds every tree
		// packed (a lean run consumes its inputs, so it gets a copy).
		return checks.Run(append([]checks.Input(nil), cur...), cfg, checks.Options{Memory: checks.Lean}).Findings
	}, keep)
}

// ConvergeWith is Converge with the findings of each round given by check,
// which must not keep or change the inputs it is given: for a run that
// renders charts, whose findings are on the template and values files
// among the inputs (a fix of a values key edits the values file). A
// finding applies to the input whose path is its file, both cleaned.
func ConvergeWith(inputs []checks.Input, check func([]checks.Input) []checks.Finding, keep func(checks.Finding) bool) ([]checks.Input, Outcome) {
	cur := append([]checks.Input(nil), inputs...)
	var out Outcome
	failedBefore := map[string]bool{}
	for round := 0; round < MaxRounds; round++ {
		byFile := map[string][]checks.Finding{}
		for _, f := range check(cur) {
			if keep == nil || keep(f) {
				byFile[path.Clean(f.File)] = append(byFile[path.Clean(f.File)], f)
			}
		}
		out.Remaining = nil
		changed := false
		// Files are fixed on every CPU, then their outcomes taken in input
		// order, so the outcome does not depend on which finished first.
		type fileFix struct {
			next    []byte
			applied []int
			failed  []Failure
		}
		fixes := make([]fileFix, len(cur))
		parallel.For(len(cur), func(i int) {
			f := &fixes[i]
			f.next, f.applied, f.failed = Apply(cur[i].Data, byFile[path.Clean(cur[i].Path)])
		})
		for i, in := range cur {
			fs := byFile[path.Clean(in.Path)]
			delete(byFile, path.Clean(in.Path))
			next, applied, failed := fixes[i].next, fixes[i].applied, fixes[i].failed
			done := map[int]bool{}
			for _, k := range applied {
				done[k] = true
			}
			for _, fl := range failed {
				f := fs[fl.Finding]
				if key := f.Fingerprint(); !failedBefore[key] {
					failedBefore[key] = true
					out.Failed = append(out.Failed, FailedFix{Finding: f, Err: fl.Err})
				}
			}
			for k, f := range fs {
				if !done[k] {
					out.Remaining = append(out.Remaining, f)
				}
			}
			if !bytes.Equal(next, in.Data) {
				changed = true
				for _, k := range applied {
					out.Fixed = append(out.Fixed, fs[k])
				}
				cur[i] = checks.Input{Path: in.Path, Data: next}
			}
		}
		// Findings on no input (a values file the config excludes) are
		// left as they are.
		rest := make([]string, 0, len(byFile))
		for file := range byFile {
			rest = append(rest, file)
		}
		sort.Strings(rest)
		for _, file := range rest {
			out.Remaining = append(out.Remaining, byFile[file]...)
		}
		if !changed {
			out.Converged = true
			return cur, out
		}
		out.Rounds++
	}
	return cur, out
}
