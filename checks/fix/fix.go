// Package fix turns findings' structured edits into changed file text and
// into suggestions: the smallest whole-line range of the original file and
// its replacement, which is what a GitHub ```suggestion block or a GitLab
// ```suggestion:-X+Y block needs.
package fix

import (
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
// document, each document's in the order given, and returns the new text,
// the indexes of the findings it fixed, and those it could not. Findings
// without a fix are neither. The result is src itself when nothing changed.
func Apply(src []byte, findings []checks.Finding) (out []byte, applied []int, failed []Failure) {
	out = src
	// One edit per document with every finding's ops: the engine parses the
	// file once per call, so this is much cheaper than a call per finding.
	// When the combined edit fails, fall back to finding by finding so that
	// the one that does not apply is named and the others still are.
	var docs []int
	byDoc := map[int][]int{}
	for _, i := range fixable(findings) {
		d := findings[i].Object.Doc
		if _, ok := byDoc[d]; !ok {
			docs = append(docs, d)
		}
		byDoc[d] = append(byDoc[d], i)
	}
	for _, d := range docs {
		idx := byDoc[d]
		var ops []edit.Op
		for _, i := range idx {
			ops = append(ops, findings[i].Fix.Edits...)
		}
		if next, err := edit.Apply(out, d, ops); err == nil {
			out = next
			applied = append(applied, idx...)
			continue
		}
		for _, i := range idx {
			next, err := edit.Apply(out, d, findings[i].Fix.Edits)
			if err != nil {
				failed = append(failed, Failure{Finding: i, Err: err})
				continue
			}
			out = next
			applied = append(applied, i)
		}
	}
	sort.Ints(applied)
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
//
// It applies all fixes once and takes the smallest whole-line hunks between
// the original and the result; each finding's own fix (applied alone) says
// which hunks it belongs to, and hunks that share a finding become one
// suggestion. The suggestions are those hunks, so committing them all is
// exact by construction.
func Suggest(src []byte, findings []checks.Finding) ([]Suggestion, []Failure) {
	want, applied, failed := Apply(src, findings)
	if len(applied) == 0 {
		return nil, failed
	}
	hunks := edit.Changes(src, want)
	if len(hunks) == 0 {
		return nil, failed
	}
	// Union-find over hunks: a finding whose own changes overlap several
	// hunks joins them.
	parent := make([]int, len(hunks))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	owners := make([][]int, len(hunks)) // findings per hunk
	for _, i := range applied {
		own, _, fl := Apply(src, findings[i:i+1])
		if len(fl) > 0 {
			continue
		}
		first := -1
		for _, c := range edit.Changes(src, own) {
			for h, hk := range hunks {
				if c.StartLine <= hk.EndLine+1 && hk.StartLine <= c.EndLine+1 {
					owners[h] = appendOnce(owners[h], i)
					if first < 0 {
						first = h
					} else {
						parent[find(h)] = find(first)
					}
				}
			}
		}
	}
	// A group's suggestion spans from its first hunk to its last; groups
	// whose spans overlap (a volume and its mount around another fix) join,
	// until no two spans overlap.
	for merged := true; merged; {
		merged = false
		lo, hi := map[int]int{}, map[int]int{}
		for h, hk := range hunks {
			r := find(h)
			if l, ok := lo[r]; !ok || hk.StartLine < l {
				lo[r] = hk.StartLine
			}
			if hk.EndLine > hi[r] {
				hi[r] = hk.EndLine
			}
		}
		for a := range lo {
			for b := range lo {
				if a != b && find(a) != find(b) && lo[a] <= hi[b] && lo[b] <= hi[a] {
					parent[find(a)] = find(b)
					merged = true
				}
			}
		}
	}
	groups := map[int][]int{} // root → hunk indexes, in order
	var roots []int
	for h := range hunks {
		r := find(h)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], h)
	}
	var out []Suggestion
	for _, r := range roots {
		var cs []edit.Change
		var fs []int
		for _, h := range groups[r] {
			cs = append(cs, hunks[h])
			for _, f := range owners[h] {
				fs = appendOnce(fs, f)
			}
		}
		c := coalesce(src, cs)[0]
		out = append(out, Suggestion{StartLine: c.StartLine, EndLine: c.EndLine, Text: c.Text, Findings: fs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartLine < out[j].StartLine })
	return out, failed
}

func appendOnce(xs []int, x int) []int {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
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
