package bot

import (
	"slices"
	"testing"
)

func TestPlanComments(t *testing.T) {
	one := Comment{Path: "a.yaml", Line: 1, Fingerprint: "f1", Fingerprints: []string{"f1"}}
	two := Comment{Path: "a.yaml", Line: 2, Fingerprint: "f2", Fingerprints: []string{"f2", "f3"}}
	r := Review{
		Comments:     []Comment{one, two},
		Fingerprints: map[string]bool{"f1": true, "f2": true, "f3": true, "f4": true},
	}
	posted := []Posted{
		{ID: "p1", Fingerprints: []string{"f1"}},   // still found: kept
		{ID: "p2", Fingerprints: []string{"f2"}},   // covers part of two: two is posted again
		{ID: "p4", Fingerprints: []string{"f4"}},   // a finding outside the comments: kept
		{ID: "gone", Fingerprints: []string{"f9"}}, // fixed
		{ID: "done", Fingerprints: []string{"f8"}, Resolved: true},
		{ID: "plain"}, // no marker: never resolved
		{ID: "mixed", Fingerprints: []string{"f9", "f1"}}, // one finding left: kept
	}
	plan := PlanComments(r, posted)
	if len(plan.Post) != 1 || plan.Post[0].Line != 2 {
		t.Errorf("Post = %+v, want the comment on line 2 (f3 is new)", plan.Post)
	}
	if len(plan.Keep) != 1 || plan.Keep[0].Line != 1 {
		t.Errorf("Keep = %+v, want the comment on line 1", plan.Keep)
	}
	if len(plan.Resolve) != 1 || plan.Resolve[0].ID != "gone" {
		t.Errorf("Resolve = %+v, want only the comment whose finding is gone", plan.Resolve)
	}
}

func TestPlanCommentsWithoutFingerprintSet(t *testing.T) {
	// A review built by hand may leave Fingerprints nil: its findings and
	// comments are what is current, not nothing.
	c := Comment{Body: "x " + FingerprintMarker("fc")}
	r := Review{Comments: []Comment{c}}
	plan := PlanComments(r, []Posted{{ID: "a", Fingerprints: []string{"fc"}}, {ID: "b", Fingerprints: []string{"old"}}})
	if len(plan.Post) != 0 || len(plan.Keep) != 1 {
		t.Errorf("a comment whose marker is posted: Post %v Keep %v", plan.Post, plan.Keep)
	}
	if len(plan.Resolve) != 1 || plan.Resolve[0].ID != "b" {
		t.Errorf("Resolve = %+v, want b", plan.Resolve)
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
