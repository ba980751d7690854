// Package fix turns findings' structured edits into changed file text and
// into suggestions: the smallest whole-line range of the original file and
// its replacement, which is what a GitHub ```suggestion block or a GitLab
// ```suggestion:-X+Y block needs.
package fix

import (
	"errors"
	"slices"
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
	if len(fixable(findings)) == 0 {
		return src, nil, nil // no need to read the file
	}
	if hasLines(findings) {
		return applyLines(src, findings)
	}
	file, err := edit.NewFile(src)
	return apply(src, file, err, findings)
}

// hasLines reports whether any of findings carries its fix as line changes
// (a Helm template's), which the file's fixes then all are: such a file is
// not YAML the edit engine reads.
func hasLines(findings []checks.Finding) bool {
	for _, f := range findings {
		if f.Fix != nil && len(f.Fix.Lines) > 0 {
			return true
		}
	}
	return false
}

// applyLines is Apply on a file whose fixes are line changes: each finding's
// changes are made whole or not at all (a finding whose changes overlap an
// earlier one's is not applied; a change an earlier finding made already
// is not made twice), and a finding with structured edits instead
// is not applied, since the file is not YAML the edit engine reads.
func applyLines(src []byte, findings []checks.Finding) (out []byte, applied []int, failed []Failure) {
	var cs []edit.Change
	for _, i := range fixable(findings) {
		lines := findings[i].Fix.Lines
		if len(lines) == 0 {
			failed = append(failed, Failure{Finding: i, Err: errors.New("the file's other fixes are line changes of a template; its structured edits are not applied with them")})
			continue
		}
		next := slices.Clone(cs)
		for _, c := range lines {
			if !slices.Contains(cs, c) { // fixes of one document may carry the same changes, made once
				next = append(next, c)
			}
		}
		if _, err := edit.ApplyAllChanges(src, next); err != nil {
			failed = append(failed, Failure{Finding: i, Err: err})
			continue
		}
		cs = next
		applied = append(applied, i)
	}
	if len(applied) == 0 {
		return src, nil, failed
	}
	out, err := edit.ApplyAllChanges(src, cs)
	if err != nil { // checked change by change above
		return src, nil, append(failed, Failure{Finding: applied[0], Err: err})
	}
	return out, applied, failed
}

// apply is Apply on src read as file (or failing to be read with err).
func apply(src []byte, file *edit.File, err error, findings []checks.Finding) (out []byte, applied []int, failed []Failure) {
	out, applied, failed = applyByDocument(src, file, err, findings, false)
	if len(applied) > 0 {
		if _, err := edit.NewFile(out); err != nil {
			// An edit moved a document boundary as yaml.v3 sees it, which
			// the engine checks per document only: redo it checking the
			// whole file before each document, as each would be checked
			// alone, so the later documents fail as they would then.
			return applyByDocument(src, file, nil, findings, true)
		}
	}
	return out, applied, failed
}

// applyByDocument is Apply. One edit per document with every finding's
// ops: the engine reads the document once per edit, so this is much cheaper
// than an edit per finding. When the combined edit fails, it falls back to
// finding by finding so that the one that does not apply is named and the
// others still are. With recheck, the whole file's document boundaries are
// checked again before each document is edited.
func applyByDocument(src []byte, file *edit.File, err error, findings []checks.Finding, recheck bool) (out []byte, applied []int, failed []Failure) {
	var docs []int
	byDoc := map[int][]int{}
	for _, i := range fixable(findings) {
		d := findings[i].Object.Doc
		if _, ok := byDoc[d]; !ok {
			docs = append(docs, d)
		}
		byDoc[d] = append(byDoc[d], i)
	}
	if len(docs) == 0 {
		return src, nil, nil
	}
	for _, d := range docs {
		idx := byDoc[d]
		if err == nil && recheck && len(applied) > 0 {
			_, err = edit.NewFile(file.Bytes())
		}
		if err != nil {
			for _, i := range idx {
				failed = append(failed, Failure{Finding: i, Err: err})
			}
			continue
		}
		lists := make([][]edit.Op, len(idx))
		for k, i := range idx {
			lists[k] = findings[i].Fix.Edits
		}
		ops := edit.Union(lists...)
		if next, err := file.Apply(d, ops); err == nil {
			file = next
			applied = append(applied, idx...)
			continue
		}
		for _, i := range idx {
			next, err := file.Apply(d, findings[i].Fix.Edits)
			if err != nil {
				failed = append(failed, Failure{Finding: i, Err: err})
				continue
			}
			file = next
			applied = append(applied, i)
		}
	}
	if len(applied) == 0 {
		return src, nil, failed
	}
	sort.Ints(applied)
	return file.Bytes(), applied, failed
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
	// Apart marks one of the separate places of one finding's fix whose
	// changes lie far apart (see Suggest): shown, not committed.
	Apart bool
}

// Suggest returns one suggestion per group of findings whose fixes touch
// overlapping or adjacent lines (several fixes of one object merge into
// one), and the findings whose fix could not be applied. Committing every
// suggestion gives exactly what Apply gives, but for one case: a finding
// whose own changes lie more than maxRepeated unchanged lines apart (a
// chart's fix in values keys far apart) is left out of the others'
// suggestions, and each of its changes comes as a suggestion of its own
// for it alone, made on the original file and marked Apart: a caller
// shows those as the separate places the fix changes, not as lines to
// commit (they may overlap the others').
//
// It applies all fixes once and takes the smallest whole-line hunks between
// the original and the result; each finding's own fix (applied alone) says
// which hunks it belongs to, and hunks that share a finding become one
// suggestion. The suggestions are those hunks, so committing them all is
// exact by construction. A fix made in several files (Fix.Also) gives no
// suggestion: its finding is neither suggested nor failed.
func Suggest(src []byte, findings []checks.Finding) ([]Suggestion, []Failure) {
	if slices.ContainsFunc(findings, across) {
		// A fix made in several files is no suggestion of one: committed
		// alone, its part in this file would be half of it.
		findings = slices.Clone(findings)
		for i := range findings {
			if across(findings[i]) {
				findings[i].Fix = nil
			}
		}
	}
	if len(fixable(findings)) == 0 {
		return nil, nil
	}
	var (
		file    *edit.File
		err     error
		want    []byte
		applied []int
		failed  []Failure
	)
	lines := hasLines(findings)
	if !lines {
		file, err = edit.NewFile(src)
	}
	// own is a finding's own fix, alone on the original: only its document
	// changes, so only its document is read and compared. Line changes
	// are their own.
	own := func(f checks.Finding) ([]edit.Change, bool) {
		if lines {
			return f.Fix.Lines, true
		}
		if err != nil {
			return nil, false
		}
		cs, err := file.Changes(f.Object.Doc, f.Fix.Edits)
		return cs, err == nil
	}
	var apartOut []Suggestion
	rest := findings
	owned := make([][]edit.Change, len(findings)) // each fixable finding's own changes, when they could be made
	for _, i := range fixable(findings) {
		cs, ok := own(findings[i])
		if ok {
			owned[i] = cs
		}
		if !ok || !apart(cs) {
			continue
		}
		if len(apartOut) == 0 {
			rest = slices.Clone(findings)
		}
		rest[i].Fix = nil
		for _, c := range cs {
			apartOut = append(apartOut, Suggestion{StartLine: c.StartLine, EndLine: c.EndLine, Text: c.Text, Findings: []int{i}, Apart: true})
		}
	}
	if lines {
		want, applied, failed = applyLines(src, rest)
	} else {
		want, applied, failed = apply(src, file, err, rest)
	}
	if len(applied) == 0 {
		return apartOut, failed
	}
	hunks := edit.Changes(src, want)
	if len(hunks) == 0 {
		return apartOut, failed
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
		first := -1
		for _, c := range owned[i] {
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
	out = append(out, apartOut...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartLine < out[j].StartLine })
	return out, failed
}

// maxRepeated is the most unchanged lines one suggestion repeats between
// the changes of one finding's fix.
const maxRepeated = 100

// apart reports whether changes cs have more than maxRepeated unchanged
// lines between them.
func apart(cs []edit.Change) bool {
	cs = slices.Clone(cs)
	sort.Slice(cs, func(i, j int) bool { return cs[i].StartLine < cs[j].StartLine })
	n := 0
	for i := 1; i < len(cs); i++ {
		n += max(cs[i].StartLine-cs[i-1].EndLine-1, 0)
	}
	return n > maxRepeated
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
		if f.Fixable() {
			out = append(out, i)
		}
	}
	return out
}
