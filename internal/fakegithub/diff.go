package fakegithub

import (
	"fmt"
	"strings"
)

// hunk is one hunk of a unified diff, with the new-side lines it shows.
type hunk struct {
	oldStart, oldLen, newStart, newLen int
	lines                              []string // " x", "-x", "+x"
}

// rightLines are the new-side lines a review comment may target in one hunk.
func (h hunk) rightLines() map[int]bool {
	out := map[int]bool{}
	n := h.newStart
	for _, l := range h.lines {
		if l[0] == '-' {
			continue
		}
		out[n] = true
		n++
	}
	return out
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diff computes the hunks (three lines of context) that turn a into b, by
// longest common subsequence: plenty for test files.
func diff(a, b string) []hunk {
	x, y := splitLines(a), splitLines(b)
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind       byte
		text       string
		oldN, newN int // 1-based line numbers before this op
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, op{' ', x[i], i + 1, j + 1})
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, op{'+', y[j], i + 1, j + 1})
			j++
		default:
			ops = append(ops, op{'-', x[i], i + 1, j + 1})
			i++
		}
	}
	const ctx = 3
	var hunks []hunk
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		h := hunk{oldStart: ops[start].oldN, newStart: ops[start].newN}
		for _, o := range ops[start:end] {
			h.lines = append(h.lines, string(o.kind)+o.text)
			if o.kind != '+' {
				h.oldLen++
			}
			if o.kind != '-' {
				h.newLen++
			}
		}
		if h.oldLen == 0 {
			h.oldStart--
		}
		if h.newLen == 0 {
			h.newStart--
		}
		hunks = append(hunks, h)
		k = end
	}
	return hunks
}

// patch renders hunks as GitHub's "patch" field.
func patch(hs []hunk) string {
	var b strings.Builder
	for i, h := range hs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n%s", h.oldStart, h.oldLen, h.newStart, h.newLen, strings.Join(h.lines, "\n"))
	}
	return b.String()
}
