package udiff

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
)

// applyUnified applies a unified diff as patch does without fuzz: every
// hunk at the line its header names, its context and removed lines
// checked; "\ No newline at end of file" drops the line break before it.
func applyUnified(t *testing.T, before []byte, diff string) []byte {
	t.Helper()
	old := Lines(before)
	var out []string
	pos := 0
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "@@ -") {
			continue
		}
		var start int
		fields := strings.Fields(l)
		from := strings.SplitN(strings.TrimPrefix(fields[1], "-"), ",", 2)
		start, _ = strconv.Atoi(from[0])
		if len(from) == 1 || from[1] != "0" {
			start-- // 1-based; an empty range names the line before it
		}
		if start < pos {
			t.Fatalf("hunk %q overlaps the one before", l)
		}
		out = append(out, old[pos:start]...)
		pos = start
		prev := byte(0)
		for i+1 < len(lines) && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "@@ ") {
			i++
			body := lines[i][1:]
			if strings.HasPrefix(lines[i], "\\") {
				if prev != '-' { // the new text's line has no line break
					n := len(out) - 1
					out[n] = strings.TrimSuffix(out[n], "\n")
				}
				continue
			}
			prev = lines[i][0]
			switch lines[i][0] {
			case ' ', '-':
				if pos >= len(old) || old[pos] != strings.TrimSuffix(body, "\n")+"\n" && old[pos] != strings.TrimSuffix(body, "\n") {
					t.Fatalf("line %d is %q, the diff says %q", pos+1, old[min(pos, len(old)-1)], body)
				}
				if lines[i][0] == ' ' {
					out = append(out, old[pos])
				}
				pos++
			case '+':
				out = append(out, body)
			}
		}
	}
	out = append(out, old[pos:]...)
	return []byte(strings.Join(out, ""))
}

// TestWriteApplies checks that the printed diff turns the old text
// into the new: a change at the very end (go-difflib's own lines add an
// empty last line there, which patch refuses), a last line without a line
// break, and a file large enough to be matched document by document, with
// changes in every document, next to document markers too.
func TestWriteApplies(t *testing.T) {
	var big, bigFixed strings.Builder
	for i := range 400 {
		fmt.Fprintf(&big, "---\nkind: ConfigMap\nmetadata:\n  name: c%d\ndata:\n  a: \"1\"\n", i)
		fmt.Fprintf(&bigFixed, "---\nkind: ConfigMap\nmetadata:\n  name: c%d\n  labels: {n: \"%d\"}\ndata:\n  a: \"1\"\n", i, i)
		if i%2 == 0 {
			fmt.Fprintf(&bigFixed, "  b: \"2\"\n") // the document's last line, next to the marker
		}
	}
	for _, c := range []struct{ name, before, after string }{
		{"change at the end", "a: 1\nb: 2\nc: 3\n", "a: 1\nb: 2\nc: 4\nd: 5\n"},
		{"no final line break", "a: 1\nb: 2", "a: 1\nb: 3"},
		{"line break added at the end", "a: 1", "a: 1\n"},
		{"from nothing", "", "a: 1\n"},
		{"to nothing", "a: 1\n", ""},
		{"large, every document", big.String(), bigFixed.String()},
	} {
		var out bytes.Buffer
		Write(&out, "f.yaml", []byte(c.before), []byte(c.after))
		if got := applyUnified(t, []byte(c.before), out.String()); string(got) != c.after {
			t.Errorf("%s: the diff gives %q, want %q\n%s", c.name, got, c.after, out.String())
		}
	}
	if n := strings.Count(big.String(), "\n"); n < diffByDocumentLines {
		t.Fatalf("the large file has %d lines, under the %d from which documents are matched apart", n, diffByDocumentLines)
	}
}

// TestWriteIsGoDifflibsDiff checks that where go-difflib's own
// unified diff is right (no change at the end of the file), Write
// prints exactly it.
func TestWriteIsGoDifflibsDiff(t *testing.T) {
	before := "a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\nh: 8\ni: 9\nj: 10\nk: 11\n"
	after := "a: 1\nb: 20\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\nh: 8\nx: 0\ni: 9\nj: 10\nk: 11\n"
	want, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: difflib.SplitLines(before), B: difflib.SplitLines(after), FromFile: "a/f.yaml", ToFile: "b/f.yaml", Context: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	Write(&got, "f.yaml", []byte(before), []byte(after))
	if got.String() != want {
		t.Errorf("Write:\n%s\ngo-difflib:\n%s", got.String(), want)
	}
}
