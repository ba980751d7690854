package checks

import (
	"slices"

	"github.com/prodready/prodready/internal/parallel"
)

// LeanFindings are a run's findings, in Result.Findings' order, as a run
// with Options.LeanFindings hands them over (Result.Lean): each is held
// where it already is, the lean finding its memo recalled (Compactor) or
// the Finding a rule returned, by a reference with its own severity and
// occurrence (32 bytes, where a Finding takes 208); At makes a Finding of
// one. A review's push at 50,000 objects recalls nearly all of its head's
// 150,000 findings, and copying them into Findings was 30 MB of the 116 MB
// the push allocated, while it makes a Finding of only those it reports
// (on a changed line, or new).
//
// The memo's findings it refers to are never changed (a memo's
// Remembered is not), so a LeanFindings is safe to read from several
// goroutines; NumberOccurrences changes it.
type LeanFindings struct {
	refs []leanRef
}

// leanRef is one finding of a LeanFindings: a lean finding recalled from a
// memo, or else a Finding, with the severity and occurrence the run gave
// it (the memo's are as the rule found them).
type leanRef struct {
	lean       *leanFinding
	full       *Finding
	severity   Severity
	occurrence int
}

// refOfLean refers to l with its own severity and occurrence.
func refOfLean(l *leanFinding) leanRef {
	return leanRef{lean: l, severity: Severity(l.severity), occurrence: int(l.occurrence)}
}

// refOfFull refers to f with its own severity and occurrence.
func refOfFull(f *Finding) leanRef {
	return leanRef{full: f, severity: f.Severity, occurrence: f.Occurrence}
}

// finding is r as a Finding.
func (r *leanRef) finding() Finding {
	var f Finding
	if r.lean != nil {
		f = r.lean.finding()
	} else {
		f = *r.full
	}
	f.Severity, f.Occurrence = r.severity, r.occurrence
	return f
}

// order is the finding's findingOrder, without making a Finding.
func (r *leanRef) order() findingOrder {
	if r.lean != nil {
		return findingOrder{r.lean.at.file, int(r.lean.line), int(r.lean.column), r.lean.rule}
	}
	return orderOf(r.full)
}

// identity is the finding's Finding.identity.
func (r *leanRef) identity() occurrenceKey {
	if r.lean == nil {
		return r.full.identity()
	}
	l := r.lean
	f := Finding{RuleID: l.rule, File: l.at.file, Object: l.at.object, Path: l.path, IdentityPath: l.identityPath}
	return f.identity()
}

// compareRefs orders findings as findingLess does.
func compareRefs(a, b leanRef) int { return a.order().compare(b.order()) }

// Len is how many findings l holds.
func (l *LeanFindings) Len() int {
	if l == nil {
		return 0
	}
	return len(l.refs)
}

// At returns l's finding i (0 ≤ i < Len) as a Finding.
func (l *LeanFindings) At(i int) Finding { return l.refs[i].finding() }

// All returns l's findings as Findings, in order.
func (l *LeanFindings) All() []Finding {
	if l.Len() == 0 {
		return nil
	}
	out := make([]Finding, len(l.refs))
	for i := range l.refs {
		out[i] = l.refs[i].finding()
	}
	return out
}

// NumberOccurrences numbers l's findings across files, as the function
// NumberOccurrences numbers Findings.
func (l *LeanFindings) NumberOccurrences() {
	if l == nil {
		return
	}
	refs := l.refs
	numberAcross(len(refs), func(i int) occurrenceKey { return refs[i].identity() }, func(i, n int) { refs[i].occurrence = n })
}

// finishLean is finishFindings for a run's findings as references: the
// silenced ones (by ig) split off as Findings, the others' severities set,
// sorted and numbered in their references.
func finishLean(refs []leanRef, ig *ignores, cfg *Config) (*LeanFindings, []Silenced) {
	var silenced []Silenced
	if !ig.empty() {
		kept := refs[:0]
		for _, r := range refs {
			f := r.finding()
			if s, ok := ig.silence(&f); ok {
				silenced = append(silenced, s)
				continue
			}
			kept = append(kept, r)
		}
		refs = kept
	}
	for i := range refs {
		if s := cfg.SeverityOf(refs[i].order().rule); s != 0 {
			refs[i].severity = s
		}
	}
	sortRefs(refs)
	numberWithinFiles(len(refs), func(i int) string { return refs[i].order().file }, func(i int) occurrenceKey { return refs[i].identity() }, func(i, n int) { refs[i].occurrence = n })
	finishSilenced(silenced, cfg)
	return &LeanFindings{refs: refs}, silenced
}

// sortedShare is about how many references sortRefs sorts in one piece.
const sortedShare = 8192

// sortRefs sorts refs in compareRefs' order, stably, as
// slices.SortStableFunc does, on every CPU: in pieces of about sortedShare
// references, each starting at a file's first, each sorted apart (when
// not in order already), and the whole sorted again only when two pieces
// are out of order at their seam. A push's 150,000 references at 50,000
// objects come file by file, but a file's not by line (an object's come in
// its rules' order): sorted on one core they were some 30 ms of its wall
// time. Pieces sorted stably and in order at their seams are the stable
// order; sorting the whole again keeps it, as the pieces kept the order
// of equal references.
func sortRefs(refs []leanRef) {
	starts := []int{0}
	for i := sortedShare; i < len(refs); i++ {
		if refs[i].order().file != refs[i-1].order().file {
			starts = append(starts, i)
			i += sortedShare - 1
		}
	}
	starts = append(starts, len(refs))
	parallel.For(len(starts)-1, func(p int) {
		piece := refs[starts[p]:starts[p+1]]
		if !slices.IsSortedFunc(piece, compareRefs) {
			slices.SortStableFunc(piece, compareRefs)
		}
	})
	for _, at := range starts[1 : len(starts)-1] {
		if compareRefs(refs[at-1], refs[at]) > 0 {
			slices.SortStableFunc(refs, compareRefs)
			return
		}
	}
}
