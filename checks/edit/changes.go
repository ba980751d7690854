package edit

import (
	"bytes"
	"sort"
)

// Change replaces whole lines of the original file: lines StartLine through
// EndLine (1-based, inclusive) become Text. Text is made of whole lines, each
// ending in the file's line ending, except a last line of the file that had
// none. It is what a GitHub ```suggestion block needs: an anchored range of
// existing lines and their new text.
//
// StartLine is always at least 1. EndLine is StartLine-1 (an empty range) only
// when the original file has no lines at all.
type Change struct {
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Text      string `json:"text"`
}

// maxDiffCost bounds the work spent looking for the smallest edit script;
// beyond it the whole differing middle becomes one Change (still correct).
const maxDiffCost = 1 << 22

// Changes returns the smallest whole-line replacements that turn old into
// new, in file order, none overlapping or adjacent (such changes are merged).
// A pure insertion after line N is expressed as a change of line N whose Text
// is line N followed by the inserted lines (an insertion before the first line
// anchors on line 1 instead), because a suggestion must replace at least one
// existing line. A pure deletion has an empty Text. Equal inputs give nil.
func Changes(old, new []byte) []Change {
	a, b := splitKeep(old), splitKeep(new)
	hs := diffLines(a, b)
	// Anchor pure insertions on a neighbouring (equal) line.
	for i := range hs {
		h := &hs[i]
		if h.a0 != h.a1 || len(a) == 0 {
			continue
		}
		if h.a0 > 0 {
			h.a0--
			h.b0--
		} else {
			h.a1++
			h.b1++
		}
	}
	// Merge overlapping or touching ranges.
	var merged []hunk
	for _, h := range hs {
		if n := len(merged); n > 0 && h.a0 <= merged[n-1].a1 {
			m := &merged[n-1]
			m.a1 = max(m.a1, h.a1)
			m.b1 = max(m.b1, h.b1)
			continue
		}
		merged = append(merged, h)
	}
	var cs []Change
	for _, h := range merged {
		var text []byte
		for _, l := range b[h.b0:h.b1] {
			text = append(text, l...)
		}
		cs = append(cs, Change{StartLine: h.a0 + 1, EndLine: h.a1, Text: string(text)})
	}
	return cs
}

// ApplyChanges replaces the line ranges of old named by cs with their Text,
// as committing the suggestions would. Changes are applied in order of
// StartLine; a change that overlaps an earlier one or lies outside old is
// ignored.
func ApplyChanges(old []byte, cs []Change) []byte {
	lines := splitKeep(old)
	sorted := append([]Change(nil), cs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].StartLine < sorted[j].StartLine })
	var out bytes.Buffer
	next := 0 // index of the first line not yet copied
	for _, c := range sorted {
		s, e := c.StartLine-1, c.EndLine
		if s < next || s < 0 || e < s || e > len(lines) {
			continue
		}
		for _, l := range lines[next:s] {
			out.WriteString(l)
		}
		out.WriteString(c.Text)
		next = e
	}
	for _, l := range lines[next:] {
		out.WriteString(l)
	}
	return out.Bytes()
}

// splitKeep splits b into lines that keep their terminating "\n".
func splitKeep(b []byte) []string {
	var ls []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			ls = append(ls, string(b))
			break
		}
		ls = append(ls, string(b[:i+1]))
		b = b[i+1:]
	}
	return ls
}

// hunk says a[a0:a1] is replaced by b[b0:b1].
type hunk struct{ a0, a1, b0, b1 int }

// diffLines returns the hunks of a minimal line diff of a and b (Myers'
// algorithm after trimming the common prefix and suffix).
func diffLines(a, b []string) []hunk {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma) == 0 && len(mb) == 0 {
		return nil
	}
	hs := myers(ma, mb)
	if hs == nil {
		hs = []hunk{{0, len(ma), 0, len(mb)}}
	}
	for i := range hs {
		hs[i].a0 += pre
		hs[i].a1 += pre
		hs[i].b0 += pre
		hs[i].b1 += pre
	}
	return hs
}

// myers computes the hunks of a shortest edit script of a into b, or nil when
// that would cost more than maxDiffCost.
func myers(a, b []string) []hunk {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return []hunk{{0, n, 0, m}}
	}
	maxD := n + m
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int // trace[d] holds v[-d-1..d+1] before step d
	cost := 0
	found := -1
	for d := 0; d <= maxD && found < 0; d++ {
		cost += 2*d + 3
		if cost > maxDiffCost {
			return nil
		}
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return nil
	}
	// Backtrack, collecting the equal (diagonal) runs.
	type run struct{ x, y, n int }
	var runs []run
	x, y := n, m
	for d := found; d >= 0; d-- {
		w := trace[d]
		get := func(k int) int { return w[k+d+1] }
		k := x - y
		pk := k - 1
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			pk = k + 1
		}
		px := get(pk)
		py := px - pk
		sx, sy := px+1, py // moved right (a line of a deleted)
		if pk == k+1 {
			sx, sy = px, py+1 // moved down (a line of b inserted)
		}
		if d == 0 {
			sx, sy = 0, 0
		}
		if x > sx {
			runs = append(runs, run{sx, sy, x - sx})
		}
		x, y = px, py
	}
	// runs are in reverse order; turn the gaps between them into hunks.
	var hs []hunk
	ax, by := 0, 0
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if r.x > ax || r.y > by {
			hs = append(hs, hunk{ax, r.x, by, r.y})
		}
		ax, by = r.x+r.n, r.y+r.n
	}
	if ax < n || by < m {
		hs = append(hs, hunk{ax, n, by, m})
	}
	return hs
}
