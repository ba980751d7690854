package fix

import (
	"slices"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// TestLineOrigins: each line of the new text comes from the old line it
// was, moved by the lines added or removed above it; a line written in a
// change from the old line at its place in the change, an inserted one
// from the line it follows.
func TestLineOrigins(t *testing.T) {
	for _, c := range []struct {
		name, old, next string
		want            []int32
	}{
		{"same", "a\nb\n", "a\nb\n", []int32{1, 2}},
		{"inserted", "a\nb\nc\n", "a\nx\ny\nb\nc\n", []int32{1, 1, 1, 2, 3}},
		{"inserted first", "a\nb\n", "x\na\nb\n", []int32{1, 1, 2}},
		{"removed", "a\nb\nc\nd\n", "a\nd\n", []int32{1, 4}},
		{"replaced", "a\nb\nc\n", "a\nB\nc\n", []int32{1, 2, 3}},
		{"replaced by more", "a\nb\nc\n", "a\nB\nB2\nB3\nc\n", []int32{1, 2, 2, 2, 3}},
		{"no last newline", "a\nb", "a\nx\nb", []int32{1, 1, 2}},
		{"appended", "a\n", "a\nb\nc\n", []int32{1, 1, 1}},
	} {
		if got := lineOrigins([]byte(c.old), []byte(c.next)); !slices.Equal(got, c.want) {
			t.Errorf("%s: lineOrigins = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestOutcomeLinesAreTheInputs runs both converges on a file whose first
// round inserts lines near its top, and whose second round fixes a line
// below them (a fix offered only once the first is in, as a zone spread
// after the node one) and leaves one finding without a fix: the fixed
// finding is at its line in the file as given, not in the text the first
// round left, and InputLine moves the finding left there too.
func TestOutcomeLinesAreTheInputs(t *testing.T) {
	const input = "kind: A\nname: a\ntarget: old\nleft: x\n"
	lineOf := func(text, prefix string) int {
		for i, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, prefix) {
				return i + 1
			}
		}
		return 0
	}
	check := func(cur []checks.Input) []checks.Finding {
		text := string(cur[0].Data)
		obj := checks.ObjectRef{Kind: "A", Name: "a"}
		fs := []checks.Finding{{RuleID: "left", File: "t.yaml", Line: lineOf(text, "left:"), Object: obj}}
		switch {
		case !strings.Contains(text, "added:"):
			fs = append(fs, checks.Finding{RuleID: "first", File: "t.yaml", Line: 1, Object: obj,
				Fix: &checks.Fix{Description: "add", Lines: []edit.Change{{StartLine: 1, EndLine: 1, Text: "kind: A\nadded: 1\nadded: 2\n"}}}})
		case strings.Contains(text, "target: old"):
			l := lineOf(text, "target:")
			fs = append(fs, checks.Finding{RuleID: "second", File: "t.yaml", Line: l, EndLine: l, Object: obj,
				Fix: &checks.Fix{Description: "set", Lines: []edit.Change{{StartLine: l, EndLine: l, Text: "target: new\n"}}}})
		}
		return fs
	}
	inputs := []checks.Input{{Path: "t.yaml", Data: []byte(input)}}
	for name, run := range bothConverges(inputs, check) {
		out, o := run()
		text := string(out[0].Data)
		if !strings.Contains(text, "added: 2\n") || !strings.Contains(text, "target: new\n") || o.Rounds != 2 {
			t.Fatalf("%s: %d rounds, the fixes not both applied:\n%s", name, o.Rounds, text)
		}
		fixed := map[string]int{}
		for _, f := range o.Fixed {
			fixed[f.RuleID] = f.Line
		}
		if want := lineOf(input, "target:"); fixed["second"] != want || fixed["first"] != 1 {
			t.Errorf("%s: fixed at %v, want second at line %d of the file as given, first at 1", name, fixed, want)
		}
		for _, f := range o.Remaining {
			if f.RuleID != "left" {
				continue
			}
			if f.Line != lineOf(text, "left:") {
				t.Errorf("%s: left at line %d, want %d of the new contents", name, f.Line, lineOf(text, "left:"))
			}
			if got, want := o.InputLine(f.File, f.Line), lineOf(input, "left:"); got != want {
				t.Errorf("%s: InputLine(left) = %d, want %d", name, got, want)
			}
		}
		if got := o.InputLine("t.yaml", lineOf(text, "added: 2")); got != 1 {
			t.Errorf("%s: InputLine of an inserted line = %d, want 1, the line it follows", name, got)
		}
		if got := o.InputLine("other.yaml", 7); got != 7 {
			t.Errorf("%s: InputLine of a file no fix changed = %d, want 7", name, got)
		}
	}
}
