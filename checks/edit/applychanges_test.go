package edit

import (
	"strings"
	"testing"
)

func TestApplyAllChangesReplacesWholeLines(t *testing.T) {
	src := []byte("a\n{{ if x }}\nb\n{{ end }}\nc\n")
	got, err := ApplyAllChanges(src, []Change{
		{StartLine: 5, EndLine: 5, Text: "c\nd\n"}, // an insertion, anchored on its line
		{StartLine: 3, EndLine: 3, Text: "B\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\n{{ if x }}\nB\n{{ end }}\nc\nd\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestApplyAllChangesRefusesOverlapsAndRangesOutsideTheFile(t *testing.T) {
	src := []byte("a\nb\nc\n")
	for name, cs := range map[string][]Change{
		"overlap":      {{StartLine: 1, EndLine: 2, Text: "x\n"}, {StartLine: 2, EndLine: 3, Text: "y\n"}},
		"past the end": {{StartLine: 3, EndLine: 4, Text: "x\n"}},
		"line 0":       {{StartLine: 0, EndLine: 1, Text: "x\n"}},
		"empty range":  {{StartLine: 2, EndLine: 1, Text: "x\n"}},
	} {
		if got, err := ApplyAllChanges(src, cs); err == nil {
			t.Errorf("%s: applied, got %q", name, got)
		} else if !strings.Contains(err.Error(), "line") {
			t.Errorf("%s: error %q does not name the lines", name, err)
		}
	}
}

func TestUnionMakesAnOpOnce(t *testing.T) {
	drop := Op{Action: Append, Path: []string{"securityContext", "capabilities", "drop"}, Value: "ALL"}
	set := Op{Action: Set, Path: []string{"securityContext", "allowPrivilegeEscalation"}, Value: "false"}
	other := Op{Action: Append, Path: []string{"securityContext", "capabilities", "drop"}, Value: "NET_RAW"}
	got := Union([]Op{drop, set}, []Op{drop}, []Op{other})
	if len(got) != 3 || got[0].Value != "ALL" || got[1].Value != "false" || got[2].Value != "NET_RAW" {
		t.Errorf("Union = %+v, want ALL once, then false, then NET_RAW", got)
	}
	src := []byte("securityContext: {}\n")
	out, err := Apply(src, 0, Union([]Op{drop}, []Op{drop}))
	if err != nil || strings.Count(string(out), "ALL") != 1 {
		t.Errorf("two fixes appending ALL gave %q (%v), want it once", out, err)
	}
}
