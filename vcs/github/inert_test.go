package github

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/internal/inert"
)

// TestHostileValuesStayInertInReviews builds what GitHub gets from
// findings on hostile manifests (see checkstest.Hostile): the review
// comments, the review body that carries them when GitHub refuses their
// positions, the check run's summary and its fix text. Nothing in them may
// mention, reference, link, show HTML or start a heading, and each comment
// carries exactly its own thread marker.
func TestHostileValuesStayInertInReviews(t *testing.T) {
	fs := checkstest.Hostile(t, catalog.Default())
	var cs []bot.Comment
	for _, f := range fs {
		c := bot.Comment{Path: checkstest.HostileValue, Line: 3, Key: f.Fingerprint(), Findings: []checks.Finding{f}, Container: checkstest.HostileValue,
			Suggestion: &bot.Suggestion{StartLine: 1, EndLine: 3, Text: "a: \"````\"\n````\n/approve\n"}}
		c.Body = bot.ThreadBody(c, "suggestion")
		if leaks := inert.Leaks(c.Body); leaks != nil {
			t.Errorf("%s comment leaks: %s", f.RuleID, strings.Join(leaks, "\n"))
		}
		if got := bot.ThreadKey(c.Body); got != c.Key {
			t.Errorf("%s: ThreadKey = %q, want %q", f.RuleID, got, c.Key)
		}
		cs = append(cs, c)
	}
	pr := bot.PullRequest{Host: "github", Repo: "o/r", Number: 1, HeadSHA: "abc", HeadRef: checkstest.HostileValue}
	r := bot.Review{PR: pr, Findings: fs, New: fs, Fixed: fs, PreExisting: fs, BaseChecked: true}
	summary := bot.Summary(r, checks.Error)
	for what, body := range map[string]string{
		"check-run summary":         summary,
		"review body with comments": bodyWithComments(summary, cs),
		"fix text":                  fixesText(bot.FixReport{Title: "Fixes not committed", Text: inert.Text(checkstest.HostileValue)}),
	} {
		if leaks := inert.Leaks(body); leaks != nil {
			t.Errorf("%s leaks: %s", what, strings.Join(leaks, "\n"))
		}
	}
}

// TestQuotedMarkerInReviewBodyIsNotTheThread: a review body that quotes a
// thread's marker in a value (a container named after it) does not count
// as carrying that thread, so its comment is still posted; the marker on
// a line of its own does.
func TestQuotedMarkerInReviewBodyIsNotTheThread(t *testing.T) {
	c := bot.Comment{Path: "a.yaml", Line: 1, Key: "k1"}
	quoted := "container " + inert.Code("api "+bot.ThreadMarker("k1")) + " runs as root\n"
	if got := notInReviews([]bot.Comment{c}, []string{quoted}); len(got) != 1 {
		t.Errorf("a quoted marker hid the thread: %v", got)
	}
	if got := notInReviews([]bot.Comment{c}, []string{quoted + "\n" + bot.ThreadMarker("k1") + "\n"}); len(got) != 0 {
		t.Errorf("the bot's own marker was not found: %v", got)
	}
}
