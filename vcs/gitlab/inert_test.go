package gitlab

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/internal/inert"
)

// noCommandLine fails when a line of body, fenced or not, starts with "/"
// after optional white space: GitLab's quick-action reader may not take
// every fence for one.
func assertNoCommand(t *testing.T, what, body string) {
	t.Helper()
	for n, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "/") {
			t.Errorf("%s: line %d could run as a quick action: %q", what, n+1, l)
		}
	}
	if leaks := inert.Leaks(body); leaks != nil {
		t.Errorf("%s leaks: %s\nbody:\n%s", what, strings.Join(leaks, "\n"), body)
	}
}

// TestHostileValuesStayInertInNotes builds the discussions, the summary
// note and a fix note GitLab gets from findings on hostile manifests (see
// checkstest.Hostile): no line starts with "/" (a quick action the bot
// would run as itself), nothing mentions, references, links or shows
// HTML, and each discussion carries exactly its own thread marker.
func TestHostileValuesStayInertInNotes(t *testing.T) {
	fs := checkstest.Hostile(t, catalog.Default())
	sug := &bot.Suggestion{StartLine: 1, EndLine: 3, Text: "a: \"````\"\n````\n/approve\n"}
	var rejected []bot.Comment
	for _, f := range fs {
		f.Fix = &checks.Fix{Description: checkstest.HostileValue, Kind: checks.StartingPoint}
		c := bot.Comment{Path: checkstest.HostileValue, Line: 3, StartLine: 1, Key: f.Fingerprint(), Findings: []checks.Finding{f, f}, Suggestion: sug, Container: checkstest.HostileValue}
		body := gitlabBody(c, 2)
		assertNoCommand(t, f.RuleID+" discussion", body)
		if got := bot.ThreadKey(body); got != c.Key {
			t.Errorf("%s: ThreadKey = %q, want %q", f.RuleID, got, c.Key)
		}
		n := 0
		for _, m := range inert.Markers(body) {
			if strings.HasPrefix(m, "<!-- prodready:thread=") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d thread markers, want 1", f.RuleID, n)
		}
		c.Body = body
		rejected = append(rejected, c)
	}
	pr := bot.PullRequest{Host: "gitlab", Repo: "g/p", Number: 1, HeadSHA: "abc", HeadRef: checkstest.HostileValue}
	r := bot.Review{PR: pr, Findings: fs, New: fs, Fixed: fs, PreExisting: fs, BaseChecked: true}
	r.Summary = bot.Summary(r, checks.Error)
	assertNoCommand(t, "summary note", summaryBody(r, rejected))
	assertNoCommand(t, "fix note", fixNoteBody(bot.FixReport{Title: "Fixes not committed", Text: inert.Text(checkstest.HostileValue) + "\n/approve\n  /merge\n"}))
}

// TestSuggestionWithCommandLineIsDropped: a suggestion whose lines could
// read as a quick action is not posted on GitLab; one without is.
func TestSuggestionWithCommandLineIsDropped(t *testing.T) {
	f := checks.Finding{RuleID: "run-as-root", Severity: checks.Warning, File: "a.yaml", Line: 1, Message: "m"}
	c := bot.Comment{Path: "a.yaml", Line: 1, Key: "k", Findings: []checks.Finding{f}, Suggestion: &bot.Suggestion{StartLine: 1, EndLine: 1, Text: "/approve : 1\n"}}
	if body := gitlabBody(c, 0); strings.Contains(body, "suggestion") || strings.Contains(body, "/approve") {
		t.Errorf("suggestion with a quick-action line posted:\n%s", body)
	}
	c.Suggestion.Text = "a: 1\n"
	if body := gitlabBody(c, 0); !strings.Contains(body, "```suggestion:-0+0\na: 1\n```") {
		t.Errorf("suggestion missing:\n%s", body)
	}
}
