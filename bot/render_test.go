package bot

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
)

func TestSuggestionBlockFence(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"a: 1\n", "```suggestion\na: 1\n```"},
		{"", "```suggestion\n```"},
		{"x: \"```\"\n", "````suggestion\nx: \"```\"\n````"},
		{"x: \"`````\"", "``````suggestion\nx: \"`````\"\n``````"},
	} {
		if got := SuggestionBlock(tc.text); got != tc.want {
			t.Errorf("SuggestionBlock(%q) =\n%s\nwant\n%s", tc.text, got, tc.want)
		}
	}
}

func TestCommentBodyCarriesMarkers(t *testing.T) {
	f := checks.Finding{RuleID: "r1", Severity: checks.Error, File: "a.yaml", Line: 3, Message: "bad <!-- prodready:fp=0000 -->"}
	g := checks.Finding{RuleID: "r2", Severity: checks.Warning, File: "a.yaml", Line: 3, Message: "worse"}
	body := CommentBody([]checks.Finding{f, g}, &Suggestion{StartLine: 3, EndLine: 3, Text: "  port: 8080\n"})
	got := Fingerprints(body)
	if len(got) != 2 || got[0] != f.Fingerprint() || got[1] != g.Fingerprint() {
		t.Errorf("Fingerprints = %v, want [%s %s] (a message must not fake a marker)", got, f.Fingerprint(), g.Fingerprint())
	}
	if !strings.Contains(body, "```suggestion\n  port: 8080\n```") {
		t.Errorf("body lacks the suggestion block:\n%s", body)
	}
}

func TestSummaryStaysUnderLimit(t *testing.T) {
	var fs []checks.Finding
	for i := 0; i < 3000; i++ {
		fs = append(fs, checks.Finding{RuleID: "r", Severity: checks.Warning, File: "a.yaml", Line: i + 1, Message: strings.Repeat("m", 100)})
	}
	s := Summary(Review{Findings: fs, New: fs, BaseChecked: true}, checks.Error)
	if n := len([]rune(s)); n > MaxSummaryChars {
		t.Fatalf("summary has %d characters, limit %d", n, MaxSummaryChars)
	}
	if !strings.Contains(s, "more (`prodready check` lists them all)") || !strings.Contains(s, "**3000 new**") {
		t.Errorf("summary lacks the count or the overflow note")
	}
	if Title(fs) != "3000 warnings" {
		t.Errorf("Title = %q", Title(fs))
	}
}

// TestCommentBodyNamesStartingPoints: a comment whose suggestion holds a
// starting-point fix says so on its first line, and names the fix as one;
// an exact fix's comment does neither.
func TestCommentBodyNamesStartingPoints(t *testing.T) {
	sug := &Suggestion{StartLine: 3, EndLine: 3, Text: "  replicas: 3\n"}
	guess := checks.Finding{RuleID: "replicas-too-few", Severity: checks.Warning, Message: "m"}.WithFix("set replicas: 3", checks.SetOp(nil, "3"))
	sure := checks.Finding{RuleID: "api-removed", Severity: checks.Error, Message: "m"}.WithExactFix("change apiVersion to policy/v1", checks.SetOp(nil, "policy/v1"))
	body := CommentBody([]checks.Finding{guess}, sug)
	if first, _, _ := strings.Cut(body, "\n"); first != StartingPointLine {
		t.Errorf("first line %q, want the starting-point line", first)
	}
	if !strings.Contains(body, "Fix (starting point): set replicas: 3") {
		t.Errorf("the fix is not named a starting point:\n%s", body)
	}
	body = CommentBody([]checks.Finding{sure}, sug)
	if strings.Contains(body, "Starting point") || strings.Contains(body, "starting point") || !strings.Contains(body, "\nFix: change apiVersion") {
		t.Errorf("an exact fix's comment:\n%s", body)
	}
	if body := CommentBody([]checks.Finding{guess}, nil); strings.HasPrefix(body, StartingPointLine) {
		t.Errorf("a comment with no suggestion opens with the starting-point line:\n%s", body)
	}
}
