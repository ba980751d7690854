// Package fix turns findings' structured edits into changed file text and
// into suggestions: the smallest whole-line range of the original file and
// its replacement, which is what a GitHub ```suggestion block or a GitLab
// ```suggestion:-X+Y block needs.
package fix

import (
	"fmt"
	"sort"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// Failure is a finding whose fix could not be applied, and why.
type Failure struct {
	Finding int // index into the findings given
	Err     error
}

// Apply applies the fixes of findings (all of one file, src) document by
// document, in the order given, and returns the new text, the indexes of the
// findings it fixed, and those it could not. Findings without a fix are
// neither. The result is src itself when nothing changed.
func Apply(src []byte, findings []checks.Finding) (out []byte, applied []int, failed []Failure) {
	out = src
	for _, i := range fixable(findings) {
		f := findings[i]
		next, err := edit.Apply(out, f.Object.Doc, f.Fix.Edits)
		if err != nil {
			failed = append(failed, Failure{Finding: i, Err: err})
			continue
		}
		out = next
		applied = append(applied, i)
	}
	return out, applied, failed
}

// Suggestion replaces lines StartLine through EndLine (1-based, inclusive)
// of the original file with Text (whole lines). A fix that only inserts
// lines covers the line it inserts under (its anchor) and repeats it first
// in Text, because a suggestion must replace at least one existing line.
type Suggestion struct {
	StartLine, EndLine int
	Text               string
	// Findings are the indexes of the findings this suggestion fixes.
	Findings []int
}

// Suggest returns one suggestion per group of findings whose fixes touch
// overlapping or adjacent lines (several fixes of one object merge into
// one), and the findings whose fix could not be applied. Committing every
// suggestion gives exactly what Apply gives.
func Suggest(src []byte, findings []checks.Finding) ([]Suggestion, []Failure) {
	want, applied, failed := Apply(src, findings)
	if len(applied) == 0 {
		return nil, failed
	}
	// Start with one group per finding, then merge groups whose line ranges
	// overlap or touch until none do.
	groups := make([]group, 0, len(applied))
	for _, i := range applied {
		g, err := newGroup(src, findings, []int{i})
		if err != nil || len(g.changes) == 0 {
			continue // a fix that changes nothing on its own (already applied by another)
		}
		groups = append(groups, g)
	}
	groups = mergeOverlapping(src, findings, groups)
	if got := edit.ApplyChanges(src, collect(groups)); string(got) != string(want) {
		// Fixes that interact (one edits what another inserted): fall back
		// to one suggestion per document, which is exact by construction.
		groups = byDocument(src, findings, applied)
	}
	var out []Suggestion
	for _, g := range groups {
		for _, c := range g.changes {
			out = append(out, Suggestion{StartLine: c.StartLine, EndLine: c.EndLine, Text: c.Text, Findings: g.findings})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartLine < out[j].StartLine })
	return out, failed
}

// group is a set of findings fixed together and the changes their fixes make.
type group struct {
	findings []int
	changes  []edit.Change
	lo, hi   int // line span of the changes
}

func newGroup(src []byte, findings []checks.Finding, idx []int) (group, error) {
	sub := make([]checks.Finding, len(idx))
	for k, i := range idx {
		sub[k] = findings[i]
	}
	out, _, failed := Apply(src, sub)
	if len(failed) > 0 {
		return group{}, fmt.Errorf("fix: %w", failed[0].Err)
	}
	cs := coalesce(src, edit.Changes(src, out))
	g := group{findings: append([]int(nil), idx...), changes: cs}
	if len(cs) > 0 {
		g.lo, g.hi = cs[0].StartLine, cs[len(cs)-1].EndLine
	}
	return g, nil
}

// mergeOverlapping merges groups whose spans overlap or touch.
func mergeOverlapping(src []byte, findings []checks.Finding, groups []group) []group {
	for {
		sort.Slice(groups, func(i, j int) bool { return groups[i].lo < groups[j].lo })
		merged := false
		for i := 0; i+1 < len(groups); i++ {
			a, b := groups[i], groups[i+1]
			if b.lo > a.hi+1 {
				continue
			}
			g, err := newGroup(src, findings, append(append([]int(nil), a.findings...), b.findings...))
			if err != nil {
				continue
			}
			groups = append(append(groups[:i:i], g), groups[i+2:]...)
			merged = true
			break
		}
		if !merged {
			return groups
		}
	}
}

// byDocument makes one group per document.
func byDocument(src []byte, findings []checks.Finding, applied []int) []group {
	perDoc := map[int][]int{}
	var docs []int
	for _, i := range applied {
		d := findings[i].Object.Doc
		if _, ok := perDoc[d]; !ok {
			docs = append(docs, d)
		}
		perDoc[d] = append(perDoc[d], i)
	}
	var out []group
	for _, d := range docs {
		if g, err := newGroup(src, findings, perDoc[d]); err == nil && len(g.changes) > 0 {
			out = append(out, g)
		}
	}
	return out
}

func collect(groups []group) []edit.Change {
	var cs []edit.Change
	for _, g := range groups {
		cs = append(cs, g.changes...)
	}
	return cs
}

// fixable returns the indexes of findings that carry a fix.
func fixable(findings []checks.Finding) []int {
	var out []int
	for i, f := range findings {
		if f.Fix != nil && len(f.Fix.Edits) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// coalesce joins a fix's changes into one, spanning from the first changed
// line to the last with the unchanged lines between kept, so each finding
// gets one suggestion even when its fix edits two places (a volume and its
// mount).
func coalesce(src []byte, cs []edit.Change) []edit.Change {
	if len(cs) <= 1 {
		return cs
	}
	lines := splitLines(src)
	joined := edit.Change{StartLine: cs[0].StartLine, EndLine: cs[len(cs)-1].EndLine}
	text := cs[0].Text
	for k := 1; k < len(cs); k++ {
		for l := cs[k-1].EndLine + 1; l < cs[k].StartLine; l++ {
			text += lines[l-1]
		}
		text += cs[k].Text
	}
	joined.Text = text
	return []edit.Change{joined}
}

// splitLines splits text into lines that keep their line endings.
func splitLines(src []byte) []string {
	var out []string
	for len(src) > 0 {
		i := 0
		for i < len(src) && src[i] != '\n' {
			i++
		}
		if i < len(src) {
			i++
		}
		out = append(out, string(src[:i]))
		src = src[i:]
	}
	return out
}
