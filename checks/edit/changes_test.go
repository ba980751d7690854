package edit

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChanges(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []Change
	}{
		{"equal", "a\nb\n", "a\nb\n", nil},
		{"both empty", "", "", nil},
		{"replace one line", "a\nb\nc\n", "a\nB\nc\n", []Change{{2, 2, "B\n"}}},
		{"insert after line 2", "a\nb\nc\n", "a\nb\nx\ny\nc\n", []Change{{2, 2, "b\nx\ny\n"}}},
		{"insert at end", "a\nb\n", "a\nb\nx\n", []Change{{2, 2, "b\nx\n"}}},
		{"insert before first line", "a\nb\n", "x\na\nb\n", []Change{{1, 1, "x\na\n"}}},
		{"delete line", "a\nb\nc\n", "a\nc\n", []Change{{2, 2, ""}}},
		{"two separate changes", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", []Change{{1, 1, "A\n"}, {5, 5, "E\n"}}},
		{"adjacent changes merge", "a\nb\nc\n", "A\nb\nx\nc\n", []Change{{1, 2, "A\nb\nx\n"}}},
		{"insert into empty file", "", "a\n", []Change{{1, 0, "a\n"}}},
		{"delete everything", "a\nb\n", "", []Change{{1, 2, ""}}},
		{"missing final newline, append", "a: 1", "a: 1\nb: 2", []Change{{1, 1, "a: 1\nb: 2"}}},
		{"crlf insert", "a: 1\r\nb: 2\r\n", "a: 1\r\nc: 3\r\nb: 2\r\n", []Change{{1, 1, "a: 1\r\nc: 3\r\n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Changes([]byte(tt.old), []byte(tt.new))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Changes (-want +got):\n%s", diff)
			}
			if back := string(ApplyChanges([]byte(tt.old), got)); back != tt.new {
				t.Errorf("ApplyChanges = %q, want %q", back, tt.new)
			}
		})
	}
}

// TestChangesRoundTripRandom checks ApplyChanges(old, Changes(old, new)) ==
// new, that every change replaces at least one line when old has any, and
// that the changed line count is minimal, on random line edits.
func TestChangesRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a\n", "b\n", "c\n", "  d: 1\n", "\n", "- e\n"}
	gen := func(n int) []string {
		ls := make([]string, n)
		for i := range ls {
			ls[i] = alphabet[r.Intn(len(alphabet))]
		}
		return ls
	}
	for i := 0; i < 3000; i++ {
		a := gen(r.Intn(12))
		b := gen(r.Intn(12))
		if r.Intn(3) == 0 { // mostly-similar pairs too
			b = append(append(append([]string(nil), a[:len(a)/2]...), gen(r.Intn(3))...), a[len(a)/2:]...)
		}
		old, new := strings.Join(a, ""), strings.Join(b, "")
		if r.Intn(4) == 0 && len(new) > 0 {
			new = strings.TrimSuffix(new, "\n")
		}
		cs := Changes([]byte(old), []byte(new))
		if got := string(ApplyChanges([]byte(old), cs)); got != new {
			t.Fatalf("round trip failed\nold %q\nnew %q\nchanges %+v\ngot %q", old, new, cs, got)
		}
		for j, c := range cs {
			if len(a) > 0 && c.EndLine < c.StartLine {
				t.Fatalf("change %+v replaces no line (old %q new %q)", c, old, new)
			}
			if j > 0 && c.StartLine <= cs[j-1].EndLine+1 {
				t.Fatalf("changes %+v overlap or touch", cs)
			}
		}
		// Minimality of the underlying diff: removed lines = len(a) - LCS.
		sa, sb := splitKeep([]byte(old)), splitKeep([]byte(new))
		removed := 0
		for _, h := range diffLines(sa, sb) {
			removed += h.a1 - h.a0
		}
		if want := len(sa) - lcs(sa, sb); removed != want {
			t.Fatalf("diff removes %d lines, minimum is %d (old %q new %q)", removed, want, old, new)
		}
	}
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestApplyChangesIgnoresBadRanges(t *testing.T) {
	old := []byte("a\nb\nc\n")
	got := ApplyChanges(old, []Change{{2, 2, "B\n"}, {2, 3, "X\n"}, {9, 9, "Z\n"}, {0, -5, "Q\n"}})
	if string(got) != "a\nB\nc\n" {
		t.Errorf("got %q", got)
	}
}

// TestChangesLargeDiff checks that very different large inputs (beyond the
// diff's work bound) still give correct, if coarser, changes.
func TestChangesLargeDiff(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	old, new := []byte("same\n"+a.String()+"end\n"), []byte("same\n"+b.String()+"end\n")
	cs := Changes(old, new)
	if got := ApplyChanges(old, cs); string(got) != string(new) {
		t.Fatal("round trip failed")
	}
	if len(cs) != 1 || cs[0].StartLine != 2 || cs[0].EndLine != 5001 {
		t.Errorf("want one change of lines 2-5001, got %d changes starting %d", len(cs), cs[0].StartLine)
	}
}
