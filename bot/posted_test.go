package bot

import (
	"slices"
	"testing"

	"github.com/prodready/prodready/checks"
)

func TestPlanComments(t *testing.T) {
	one := Comment{Path: "a.yaml", Line: 1, Key: "k1", Fingerprint: "f1", Fingerprints: []string{"f1"}, Body: "one " + ThreadMarker("k1")}
	two := Comment{Path: "a.yaml", Line: 2, Key: "k2", Fingerprint: "f2", Fingerprints: []string{"f2", "f3"}, Body: "two, now with f3 " + ThreadMarker("k2")}
	three := Comment{Path: "a.yaml", Line: 3, Key: "k3", Fingerprint: "f5", Fingerprints: []string{"f5"}, Body: "three " + ThreadMarker("k3")}
	four := Comment{Path: "a.yaml", Line: 4, Key: "k4", Fingerprint: "f6", Fingerprints: []string{"f6"}, Body: "four " + ThreadMarker("k4")}
	r := Review{
		Comments:     []Comment{one, two, three, four},
		Fingerprints: NewFingerprintSet("f1", "f2", "f3", "f4", "f5", "f6"),
	}
	posted := []Posted{
		{ID: "p1", Key: "k1", Fingerprints: []string{"f1"}, Body: "one " + ThreadMarker("k1")},                   // same text: kept
		{ID: "p1bis", Key: "k1", Fingerprints: []string{"f1"}, Body: "one " + ThreadMarker("k1")},                // a duplicate: left alone
		{ID: "p2", Key: "k2", Fingerprints: []string{"f2"}, Body: "two " + ThreadMarker("k2")},                   // text changed: edited
		{ID: "p3", Key: "k3", Fingerprints: []string{"f5"}, Body: "three " + ThreadMarker("k3"), Resolved: true}, // back: reopened
		{ID: "p4", Key: "k9", Fingerprints: []string{"f4"}},                                                      // a finding outside the threads: kept
		{ID: "gone", Key: "k8", Fingerprints: []string{"f9"}},                                                    // fixed
		{ID: "done", Key: "k7", Fingerprints: []string{"f8"}, Resolved: true},
		{ID: "plain"}, // no marker: never resolved
	}
	plan := PlanComments(r, posted)
	if len(plan.Post) != 1 || plan.Post[0].Key != "k4" {
		t.Errorf("Post = %+v, want only the thread k4", plan.Post)
	}
	if len(plan.Keep) != 2 || plan.Keep[0].Key != "k1" || plan.Keep[1].Key != "k3" {
		t.Errorf("Keep = %+v, want k1 and k3", plan.Keep)
	}
	if len(plan.Edit) != 1 || plan.Edit[0].Posted.ID != "p2" || plan.Edit[0].Comment.Key != "k2" {
		t.Errorf("Edit = %+v, want p2 with k2's text", plan.Edit)
	}
	if len(plan.Reopen) != 1 || plan.Reopen[0].ID != "p3" {
		t.Errorf("Reopen = %+v, want p3", plan.Reopen)
	}
	if len(plan.Resolve) != 1 || plan.Resolve[0].ID != "gone" {
		t.Errorf("Resolve = %+v, want only the thread whose finding is gone", plan.Resolve)
	}
}

// TestPlanCommentsMovedSuggestion: a thread whose lines moved keeps its
// place and text but loses its suggestion, which would change the lines
// it was posted on.
func TestPlanCommentsMovedSuggestion(t *testing.T) {
	c := Comment{Path: "b.yaml", StartLine: 7, Line: 8, Key: "k", Fingerprint: "f", Fingerprints: []string{"f"}, Suggestion: &Suggestion{StartLine: 7, EndLine: 8, Text: "x\n"},
		Findings: []checks.Finding{{RuleID: "replicas-too-few", Severity: checks.Warning, File: "b.yaml", Line: 7, Message: "one replica"}}}
	c.Body = ThreadBody(c, "suggestion")
	plan := PlanComments(Review{Comments: []Comment{c}}, []Posted{{ID: "p", Key: "k", Fingerprints: []string{"f"}, Body: c.Body, Path: "a.yaml", StartLine: 3, Line: 4}})
	if len(plan.Edit) != 1 || plan.Edit[0].Comment.Suggestion != nil || !slices.ContainsFunc(plan.Edit[0].Comment.Notes, func(n string) bool { return n != "" }) {
		t.Fatalf("Edit = %+v, want the thread without its suggestion", plan.Edit)
	}
	again := PlanComments(Review{Comments: []Comment{c}}, []Posted{{ID: "p", Key: "k", Fingerprints: []string{"f"}, Body: plan.Edit[0].Comment.Body, Path: "a.yaml", StartLine: 3, Line: 4}})
	if len(again.Edit) != 0 || len(again.Keep) != 1 {
		t.Errorf("the moved thread is edited again: %+v", again.Edit)
	}
	same := PlanComments(Review{Comments: []Comment{c}}, []Posted{{ID: "p", Key: "k", Fingerprints: []string{"f"}, Body: c.Body, Path: "b.yaml", StartLine: 7, Line: 8}})
	if len(same.Keep) != 1 {
		t.Errorf("a thread on its lines is not kept: %+v", same)
	}
}

func TestAllFingerprints(t *testing.T) {
	c := Comment{Body: FingerprintMarker("abc") + FingerprintMarker("x"), Fingerprint: "def", Fingerprints: []string{"x"}}
	if got := c.AllFingerprints(); !slices.Equal(got, []string{"x", "abc", "def"}) {
		t.Errorf("AllFingerprints = %v, want [x abc def]", got)
	}
	if got := (Comment{}).AllFingerprints(); len(got) != 0 {
		t.Errorf("a comment without fingerprints covers %v", got)
	}
}
