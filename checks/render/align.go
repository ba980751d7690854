package render

import (
	"strings"

	"github.com/prodready/prodready/checks/render/internal/tmplmark"
)

// maxAlignCells bounds the table alignMarks fills for the stretch where a
// template's two renders differ (lines of one times lines of the other).
const maxAlignCells = 1 << 20

// alignMarks reads the marks of a template's marked output (mlines) for
// each line of its output (lines): a line gets the marks of the marked
// line that, stripped of them, is the same text (or writes the same key)
// and stands at the same place in the order of both. Marks never change what a template
// renders, but a chart can still compute something from a marked text the
// marked render's functions do not clean (a checksum of another
// template's output, a helper's output compared as a string); the lines
// that then differ, and those the two outputs do not share at all, get
// no marks, and missed counts those of them that start a key or an item
// (a line of a block scalar's text, such as a random password's bcrypt
// hash, places no key).
func alignMarks(lines, mlines []string) (marks [][]tmplmark.Mark, missed int) {
	clean := make([]string, len(mlines))
	mk := make([][]tmplmark.Mark, len(mlines))
	for i, ml := range mlines {
		clean[i], mk[i] = tmplmark.ReadLine(ml)
	}
	// Lines are compared by their key where they have one: a value that
	// differs between the two renders on its own (a random password, a
	// checksum of one, a bcrypt hash with its salt) is still written by
	// the same key line of the same template.
	plain := make([]string, len(lines))
	for i, l := range lines {
		plain[i] = lineKey(l)
	}
	for i, l := range clean {
		clean[i] = lineKey(l)
	}
	orig := lines
	lines = plain
	marks = make([][]tmplmark.Mark, len(lines))
	matched := make([]bool, len(lines))
	// The lines both begin and end with, then the stretch between.
	pre := 0
	for pre < len(lines) && pre < len(clean) && lines[pre] == clean[pre] {
		marks[pre], matched[pre] = mk[pre], true
		pre++
	}
	suf := 0
	for suf < len(lines)-pre && suf < len(clean)-pre && lines[len(lines)-1-suf] == clean[len(clean)-1-suf] {
		marks[len(lines)-1-suf], matched[len(lines)-1-suf] = mk[len(clean)-1-suf], true
		suf++
	}
	a, b := lines[pre:len(lines)-suf], clean[pre:len(clean)-suf]
	if len(a) > 0 && len(b) > 0 && len(a)*len(b) <= maxAlignCells {
		for i, j := range commonLines(a, b) {
			if j >= 0 {
				marks[pre+i], matched[pre+i] = mk[pre+j], true
			}
		}
	}
	for i, l := range lines {
		if !matched[i] && (l != orig[i] || strings.HasPrefix(strings.TrimLeft(l, " "), "- ")) {
			missed++ // a key line or an item: a key of its may be misplaced
		}
	}
	return marks, missed
}

// commonLines returns, for each line of a, the index of the line of b it
// is matched with in a longest common subsequence of the two, or -1.
func commonLines(a, b []string) []int {
	n, m := len(a), len(b)
	// lcs[i][j] is the length of a longest common subsequence of a[i:]
	// and b[j:], in one slice of (n+1)*(m+1) cells.
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
				lcs[i*w+j] = lcs[(i+1)*w+j]
			default:
				lcs[i*w+j] = lcs[i*w+j+1]
			}
		}
	}
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			out[i] = j
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// lineKey is a line up to the colon of the key it starts with (with its
// indentation and any "- "), or the whole line when it starts no key.
func lineKey(l string) string {
	body := strings.TrimLeft(l, " ")
	body = strings.TrimLeft(body, "- ")
	if body == "" || body[0] == '"' || body[0] == '\'' || body[0] == '{' || body[0] == '[' || body[0] == '#' {
		return l
	}
	if i := strings.Index(l, ": "); i > 0 && !strings.ContainsAny(l[:i], "\"'{}[]#") {
		return l[:i+1]
	}
	return l
}
