package fakegitlab

import (
	"fmt"
	"strings"
)

// UnifiedDiff returns the hunks (no file headers, three lines of context)
// that turn old into new, the shape of the "diff" field of GitLab's merge
// request diffs API. It uses a longest-common-subsequence line diff, which
// is what git produces for the small files of tests.
func UnifiedDiff(old, new string) string {
	a, b := splitLines(old), splitLines(new)
	ops := lcsOps(a, b)
	const ctx = 3
	var out strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk starts ctx lines before the first change and runs until
		// more than 2*ctx unchanged lines follow the last change.
		start := max(0, i-ctx)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		stop := min(len(ops), end+ctx+1)
		oldStart, newStart := ops[start].oldLine, ops[start].newLine
		oldN, newN := 0, 0
		var body strings.Builder
		for _, op := range ops[start:stop] {
			body.WriteString(string(op.kind) + op.text + "\n")
			if op.kind != '+' {
				oldN++
			}
			if op.kind != '-' {
				newN++
			}
		}
		if oldN == 0 {
			oldStart--
		}
		if newN == 0 {
			newStart--
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n%s", hunkRange(oldStart, oldN), hunkRange(newStart, newN), body.String())
		i = stop
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

type lineOp struct {
	kind             byte // ' ', '-', '+'
	text             string
	oldLine, newLine int // 1-based line the op is at (next line for the side it lacks)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func lcsOps(a, b []string) []lineOp {
	n, m := len(a), len(b)
	dp := make([][]int, n+1)
	for i := range dp {
		dp[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	var ops []lineOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, lineOp{' ', a[i], i + 1, j + 1})
			i++
			j++
		case i < n && (j == m || dp[i+1][j] >= dp[i][j+1]):
			ops = append(ops, lineOp{'-', a[i], i + 1, j + 1})
			i++
		default:
			ops = append(ops, lineOp{'+', b[j], i + 1, j + 1})
			j++
		}
	}
	return ops
}

// mapLine is where 1-based line n of old is in new, false when the line
// was removed or changed.
func mapLine(old, new string, n int) (int, bool) {
	ops := lcsOps(splitLines(old), splitLines(new))
	o, w := 0, 0
	for _, op := range ops {
		switch op.kind {
		case ' ':
			o++
			w++
			if o == n {
				return w, true
			}
		case '-':
			o++
			if o == n {
				return 0, false
			}
		case '+':
			w++
		}
	}
	return 0, false
}
