package bot

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/internal/inert"
)

// hostileSuggestion is a suggestion whose lines hold fences and a quick
// action: its block must hold them all.
var hostileSuggestion = &Suggestion{StartLine: 1, EndLine: 2, Text: "a: \"````\"\n````\n/approve\n"}

// assertInert fails unless body is inert (inert.Leaks) and its one thread
// marker, when want is set, is the bot's own.
func assertInert(t *testing.T, what, body, wantKey string) {
	t.Helper()
	if leaks := inert.Leaks(body); leaks != nil {
		t.Errorf("%s leaks: %s\nbody:\n%s", what, strings.Join(leaks, "\n"), body)
	}
	threads := 0
	for _, m := range inert.Markers(body) {
		if strings.HasPrefix(m, "<!-- prodready:thread=") {
			threads++
		}
	}
	if wantKey == "" {
		if threads > 0 {
			t.Errorf("%s holds a thread marker:\n%s", what, body)
		}
		return
	}
	if threads != 1 {
		t.Errorf("%s holds %d thread markers, want 1:\n%s", what, threads, body)
	}
	if got := ThreadKey(body); got != wantKey {
		t.Errorf("%s: ThreadKey = %q, want %q", what, got, wantKey)
	}
}

// TestHostileValuesStayInert runs every rule over manifests whose every
// string a rule may quote is hostile (newline and /approve, @someone, #1,
// !1, a heading, a link, an image, HTML, a fake marker, fences, \r,
// U+2028, U+2029) and checks every body the bot builds from the findings:
// inline comments, threads (one finding, a container's findings, several
// objects' findings, with a suggestion), the summary and the fix job's texts.
func TestHostileValuesStayInert(t *testing.T) {
	fs := checkstest.Hostile(t, catalog.Default())
	for i, f := range fs {
		f.Fix = &checks.Fix{Description: checkstest.HostileValue + " " + f.Message, Kind: checks.StartingPoint}
		fs[i] = f
		assertInert(t, f.RuleID+" comment", CommentBody([]checks.Finding{f}, hostileSuggestion), "")
		c := Comment{Path: f.File, Key: f.Fingerprint(), Findings: []checks.Finding{f}, Suggestion: hostileSuggestion,
			Notes: []string{"The suggestion on line 3 (the thread about container " + inert.Code(checkstest.HostileValue) + ") fixes `x` too: its lines overlap."}}
		assertInert(t, f.RuleID+" thread", ThreadBody(c, "suggestion"), c.Key)
	}
	group := Comment{Path: "deploy/hostile.yaml", Key: "k1", Findings: fs, Container: checkstest.HostileValue}
	assertInert(t, "container thread", ThreadBody(group, "suggestion:-0+1"), "k1")
	objects := Comment{Path: "deploy/hostile.yaml", Key: "k2", Findings: fs} // one thread naming several objects (sameSaid)
	assertInert(t, "objects thread", ThreadBody(objects, "suggestion"), "k2")

	pr := PullRequest{Host: "github", Repo: "o/r", Number: 1, HeadSHA: "abc", HeadRef: checkstest.HostileValue}
	r := Review{PR: pr, Findings: fs, New: fs, Fixed: fs, PreExisting: fs, BaseChecked: true,
		IgnoredByPR: []IgnoredByPR{{Finding: fs[0], By: checkstest.HostileValue, File: checkstest.HostileValue, Line: 1}}}
	assertInert(t, "summary", Summary(r, checks.Error), "")

	var ap applied
	ap.fixed, ap.partly = fs, fs
	for _, f := range fs {
		ap.leftOut = append(ap.leftOut, LeftOut{Finding: f, Reason: f.Message})
	}
	assertInert(t, "fix texts", partlyText(ap.partly)+leftOutText(ap.leftOut)+"\n"+refusal(ErrBranchProtected, nil).Text, "")
}

// TestQuotedMarkerKeepsThreadKey: a container named after a thread marker
// does not change the key the bot reads back from its thread, and the
// second push posts nothing new.
func TestQuotedMarkerKeepsThreadKey(t *testing.T) {
	f := checks.Finding{RuleID: "run-as-root", Severity: checks.Warning, File: "a.yaml", Line: 3,
		Message: "container `api <!-- prodready:thread=x -->` runs as root", ContainerLine: 3,
		Object: checks.ObjectRef{Kind: "Deployment", Name: "api <!-- prodready:thread=x -->"}}
	c := Comment{Path: "a.yaml", Line: 3, Key: "k", Findings: []checks.Finding{f, f}, Container: "api <!-- prodready:thread=x -->",
		Notes: []string{"The suggestion on line 3 (the thread about container " + inert.Code("api <!-- prodready:thread=x -->") + ") fixes `x` too: its lines overlap."}}
	c.Fingerprint = f.Fingerprint()
	c.Fingerprints = []string{f.Fingerprint()}
	c.Body = ThreadBody(c, "suggestion")
	if got := ThreadKey(c.Body); got != "k" {
		t.Fatalf("ThreadKey = %q, want k:\n%s", got, c.Body)
	}
	if got := Fingerprints(c.Body); len(got) != 2 || got[0] != f.Fingerprint() {
		t.Fatalf("Fingerprints = %v", got)
	}
	// A marker in the text, not in the trailer, is not the bot's.
	if got := ThreadKey("text <!-- prodready:thread=x --> more\n\n" + ThreadMarker("k") + "\n"); got != "k" {
		t.Errorf("ThreadKey read a marker out of the text: %q", got)
	}
	posted := []Posted{{ID: "p1", Key: ThreadKey(c.Body), Fingerprints: Fingerprints(c.Body), Body: c.Body}}
	plan := PlanComments(Review{Comments: []Comment{c}}, posted)
	if len(plan.Post) != 0 || len(plan.Edit) != 0 {
		t.Errorf("second push: post %d, edit %d, want nothing", len(plan.Post), len(plan.Edit))
	}
}
