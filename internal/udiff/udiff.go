// Package udiff writes unified diffs that git apply and patch take: git's a/ and
// b/ names, 3 lines of context, the marker for a last line without a line
// break. prodready fix --diff prints them, and the bot offers them as a patch
// where it cannot commit.
package udiff

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// diffByDocumentLines is the size from which Write diffs a file of
// several documents one document at a time: go-difflib's matcher costs
// about the square of the changes it is given, and fix can change every
// document of a large file (3,000 fixed Deployments in one file took 45 s
// to print whole).
const diffByDocumentLines = 2000

// Write prints a unified diff of before and after, with git's a/ and
// b/ names and 3 lines of context. A large file is matched document by
// document when both sides have the same documents (a fix never adds or
// removes one), then cut into hunks as a whole.
func Write(w io.Writer, path string, before, after []byte) {
	a, b := Lines(before), Lines(after)
	da, db := documentStarts(a), documentStarts(b)
	if len(a) < diffByDocumentLines || len(da) < 2 || len(da) != len(db) {
		writeUnifiedHunks(w, path, a, b, difflib.NewMatcher(a, b).GetGroupedOpCodes(3))
		return
	}
	// Each document's opcodes, in the whole file's numbering, make the
	// whole file's: the documents pair up in order, and each pair's lines
	// are diffed on their own.
	var codes []difflib.OpCode
	for i := range da {
		ea, eb := len(a), len(b)
		if i+1 < len(da) {
			ea, eb = da[i+1], db[i+1]
		}
		for _, c := range difflib.NewMatcher(a[da[i]:ea], b[db[i]:eb]).GetOpCodes() {
			c.I1, c.I2, c.J1, c.J2 = c.I1+da[i], c.I2+da[i], c.J1+db[i], c.J2+db[i]
			if n := len(codes); n > 0 && c.Tag == 'e' && codes[n-1].Tag == 'e' {
				codes[n-1].I2, codes[n-1].J2 = c.I2, c.J2
				continue
			}
			codes = append(codes, c)
		}
	}
	writeUnifiedHunks(w, path, a, b, groupOpCodes(codes, 3))
}

// groupOpCodes cuts opcodes into hunks with n lines of context, merging
// changes closer than 2n lines: go-difflib's GetGroupedOpCodes, for
// opcodes made by more than one matcher. (Adapted from go-difflib, BSD
// licence, Copyright (c) 2013 Patrick Mezard.)
func groupOpCodes(codes []difflib.OpCode, n int) [][]difflib.OpCode {
	if len(codes) == 0 {
		return nil
	}
	if c := codes[0]; c.Tag == 'e' {
		codes[0] = difflib.OpCode{Tag: 'e', I1: max(c.I1, c.I2-n), I2: c.I2, J1: max(c.J1, c.J2-n), J2: c.J2}
	}
	if c := codes[len(codes)-1]; c.Tag == 'e' {
		codes[len(codes)-1] = difflib.OpCode{Tag: 'e', I1: c.I1, I2: min(c.I2, c.I1+n), J1: c.J1, J2: min(c.J2, c.J1+n)}
	}
	var groups [][]difflib.OpCode
	var group []difflib.OpCode
	for _, c := range codes {
		// End the current group and start a new one at a long
		// stretch without changes.
		if c.Tag == 'e' && c.I2-c.I1 > 2*n {
			group = append(group, difflib.OpCode{Tag: 'e', I1: c.I1, I2: min(c.I2, c.I1+n), J1: c.J1, J2: min(c.J2, c.J1+n)})
			groups = append(groups, group)
			group = nil
			c.I1, c.J1 = max(c.I1, c.I2-n), max(c.J1, c.J2-n)
		}
		group = append(group, c)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].Tag == 'e') {
		groups = append(groups, group)
	}
	return groups
}

// Lines cuts text into lines that keep their line break (the last one
// may have none). go-difflib's SplitLines adds an empty line after a final
// line break, which a hunk at the end of the file then counts as context,
// so that patch cannot apply it.
func Lines(text []byte) []string {
	lines := strings.SplitAfter(string(text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// documentStarts returns the index of each document's first line in
// lines: the first line, and every "---" marker line after it.
func documentStarts(lines []string) []int {
	starts := []int{0}
	for i, l := range lines {
		if i > 0 && strings.HasPrefix(l, "---") && (len(l) == 3 || strings.ContainsRune(" \t\r\n", rune(l[3]))) {
			starts = append(starts, i)
		}
	}
	return starts
}

// writeUnifiedHunks writes groups of go-difflib opcodes over a and b as
// go-difflib's WriteUnifiedDiff writes its own, with the marker for a last
// line without a line break.
func writeUnifiedHunks(w io.Writer, path string, a, b []string, groups [][]difflib.OpCode) {
	if len(groups) == 0 {
		return
	}
	out := bufio.NewWriter(w)
	defer out.Flush()
	fmt.Fprintf(out, "--- a/%s\n+++ b/%s\n", path, path)
	for _, g := range groups {
		first, last := g[0], g[len(g)-1]
		fmt.Fprintf(out, "@@ -%s +%s @@\n", unifiedRange(first.I1, last.I2), unifiedRange(first.J1, last.J2))
		for _, c := range g {
			if c.Tag == 'e' {
				writeDiffLines(out, ' ', a[c.I1:c.I2])
				continue
			}
			if c.Tag == 'r' || c.Tag == 'd' {
				writeDiffLines(out, '-', a[c.I1:c.I2])
			}
			if c.Tag == 'r' || c.Tag == 'i' {
				writeDiffLines(out, '+', b[c.J1:c.J2])
			}
		}
	}
}

// writeDiffLines writes lines of a hunk, each after mark; a last line
// without a line break is followed by the marker that says so.
func writeDiffLines(out *bufio.Writer, mark byte, lines []string) {
	for _, l := range lines {
		out.WriteByte(mark)
		out.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// unifiedRange is a hunk header's range of lines [start, stop), as
// go-difflib writes it: 1-based, the length left out when it is 1, and an
// empty range at the line before it.
func unifiedRange(start, stop int) string {
	beginning, length := start+1, stop-start
	if length == 1 {
		return fmt.Sprintf("%d", beginning)
	}
	if length == 0 {
		beginning--
	}
	return fmt.Sprintf("%d,%d", beginning, length)
}
