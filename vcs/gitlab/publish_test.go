package gitlab

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/fakegitlab"
)

const baseApp = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: web:1
`

// headApp adds lines 6-8 (replicas and a label block) and changes the image.
const headApp = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    spec:
      containers:
        - name: web
          image: web:2
`

func finding(rule string, line int) checks.Finding {
	return checks.Finding{RuleID: rule, Severity: checks.Warning, File: "deploy/app.yaml", Line: line, EndLine: line, Message: rule + " message",
		Object: checks.ObjectRef{Kind: "Deployment", Name: "web"}}
}

// comment is an inline comment as the Reviewer makes it; suggestion is the
// replacement of lines start..end ("" for none).
func comment(f checks.Finding, start, end int, suggestion string) bot.Comment {
	var sug *bot.Suggestion
	if suggestion != "" {
		sug = &bot.Suggestion{StartLine: start, EndLine: end, Text: suggestion, Findings: []int{0}}
	}
	fs := []checks.Finding{f}
	return bot.Comment{Path: f.File, StartLine: start, Line: end, Body: bot.CommentBody(fs, sug),
		Fingerprint: f.Fingerprint(), Fingerprints: []string{f.Fingerprint()}, Findings: fs, Suggestion: sug}
}

func review(fs []checks.Finding, cs []bot.Comment) bot.Review {
	return bot.Review{Findings: fs, Comments: cs, Summary: fmt.Sprintf("### prodready\n%d findings\n", len(fs)), Conclusion: "failure", Title: "findings"}
}

func TestPublishPostsDiscussionsResolvesAndEditsTheSummary(t *testing.T) {
	s, pr := setup(t, map[string]string{"deploy/app.yaml": baseApp}, map[string]string{"deploy/app.yaml": headApp})
	h, _ := newTestHost(t, s)
	ctx := context.Background()
	other := fakegitlab.User{ID: 5, Username: "alice"}
	fRep, fSel, fCtx := finding("replicas-too-low", 6), finding("selector", 7), finding("on-context", 4)
	s.AddNote(projectID, 1, other, "quoting <!-- prodready:fp="+fRep.Fingerprint()+" -->", true)

	if _, err := h.StartReview(ctx, pr); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ChangedFiles(ctx, pr); err != nil {
		t.Fatal(err)
	}
	r := review([]checks.Finding{fCtx, fRep, fSel}, []bot.Comment{
		comment(fRep, 6, 6, "  replicas: 3\n"),
		comment(fSel, 7, 8, "  selector:\n    matchLabels:\n      app: web\n"),
		comment(fCtx, 4, 4, ""), // a context line: never posted
	})
	if err := h.Publish(ctx, pr, bot.ReviewHandle{}, r); err != nil {
		t.Fatal(err)
	}
	mine := func() []fakegitlab.Discussion {
		var out []fakegitlab.Discussion
		for _, d := range s.Discussions(projectID, 1) {
			if d.Notes[0].Author.ID == s.User.ID {
				out = append(out, d)
			}
		}
		return out
	}
	ds := mine()
	if len(ds) != 3 {
		t.Fatalf("got %d bot discussions, want 2 inline + 1 summary: %+v", len(ds), ds)
	}
	mr := s.MR(projectID, 1)
	one, multi, summary := ds[0].Notes[0], ds[1].Notes[0], ds[2].Notes[0]
	p := one.Position
	if p == nil || p.PositionType != "text" || p.BaseSHA != mr.BaseSHA || p.StartSHA != mr.StartSHA || p.HeadSHA != mr.HeadSHA ||
		p.NewPath != "deploy/app.yaml" || p.OldPath != "deploy/app.yaml" || *p.NewLine != 6 || p.OldLine != nil || p.LineRange != nil {
		t.Errorf("one-line position = %s", js(p))
	}
	if !strings.Contains(one.Body, "```suggestion:-0+0\n  replicas: 3\n```") {
		t.Errorf("one-line body has no suggestion:-0+0 block:\n%s", one.Body)
	}
	p = multi.Position
	if p == nil || *p.NewLine != 7 || p.LineRange == nil || *p.LineRange.Start.NewLine != 7 || *p.LineRange.End.NewLine != 8 ||
		p.LineRange.Start.LineCode != fakegitlab.LineCode("deploy/app.yaml", 6, 7) || p.LineRange.End.LineCode != fakegitlab.LineCode("deploy/app.yaml", 6, 8) {
		t.Errorf("multi-line position = %s", js(p))
	}
	if !strings.Contains(multi.Body, "```suggestion:-0+1\n") {
		t.Errorf("multi-line body has no suggestion:-0+1 block:\n%s", multi.Body)
	}
	if !strings.HasPrefix(summary.Body, summaryMarker) || summary.Position != nil || !strings.Contains(summary.Body, "deploy/app.yaml:4") {
		t.Errorf("summary note:\n%s\nwant the marker and the finding that could not be commented", summary.Body)
	}
	st := s.Statuses()
	if len(st) != 2 || st[0].State != "pending" || st[1].State != "failed" || st[1].Name != "prodready" || st[1].Description != "findings" || st[1].SHA != pr.HeadSHA {
		t.Errorf("statuses = %+v, want pending then failed with the title", st)
	}

	// The same review again (a redelivery, or a push that changes nothing):
	// nothing new is posted, the summary is not rewritten.
	posts := len(s.CallsTo("POST", "/discussions"))
	if err := h.Publish(ctx, pr, bot.ReviewHandle{}, r); err != nil {
		t.Fatal(err)
	}
	if n := len(s.CallsTo("POST", "/discussions")) - posts; n != 0 {
		t.Errorf("re-publishing posted %d discussions, want 0", n)
	}
	if n := len(s.CallsTo("POST", "/notes")); n != 1 {
		t.Errorf("%d summary notes created, want 1", n)
	}

	// The replicas finding is fixed: its discussion is resolved, the other
	// stays open and, its suggestion gone, is edited in place, the summary
	// is edited in place, alice's note untouched.
	r2 := review([]checks.Finding{fSel}, []bot.Comment{comment(fSel, 7, 8, "")})
	posts = len(s.CallsTo("POST", "/discussions"))
	r2.Conclusion, r2.Title = "success", "1 warning"
	if err := h.Publish(ctx, pr, bot.ReviewHandle{}, r2); err != nil {
		t.Fatal(err)
	}
	ds = mine()
	if len(ds) != 3 || !ds[0].Notes[0].Resolved || ds[1].Notes[0].Resolved {
		t.Errorf("after the fix: resolved = %v/%v, want the replicas discussion resolved only", ds[0].Notes[0].Resolved, ds[1].Notes[0].Resolved)
	}
	if n := len(s.CallsTo("POST", "/discussions")) - posts; n != 0 {
		t.Errorf("the changed thread was posted again (%d discussions)", n)
	}
	if strings.Contains(ds[1].Notes[0].Body, "```suggestion") || !strings.Contains(ds[1].Notes[0].Body, "selector message") {
		t.Errorf("the selector thread was not edited in place:\n%s", ds[1].Notes[0].Body)
	}
	if !strings.Contains(ds[2].Notes[0].Body, "1 findings") || len(s.CallsTo("PUT", "/notes/")) != 2 {
		t.Errorf("summary not edited in place:\n%s", ds[2].Notes[0].Body)
	}
	for _, d := range s.Discussions(projectID, 1) {
		if d.Notes[0].Author.ID == other.ID && d.Notes[0].Resolved {
			t.Error("a person's note carrying a marker was resolved")
		}
	}
	if st := s.Statuses(); st[len(st)-1].State != "success" {
		t.Errorf("last status = %+v, want success", st[len(st)-1])
	}
}

func TestPublishLeavesARefusedPositionToTheSummary(t *testing.T) {
	s, pr := setup(t, map[string]string{"deploy/app.yaml": baseApp}, map[string]string{"deploy/app.yaml": headApp})
	h, _ := newTestHost(t, s)
	ctx := context.Background()
	if _, err := h.ChangedFiles(ctx, pr); err != nil {
		t.Fatal(err)
	}
	// GitLab's diff no longer has line 6 as an added line (say the diff
	// was recomputed): the position is refused with 400 line_code.
	mr := s.MR(projectID, 1)
	mr.Diffs[0].Diff = fakegitlab.UnifiedDiff(headApp, headApp+"extra: 1\n")
	f := finding("replicas-too-low", 6)
	if err := h.Publish(ctx, pr, bot.ReviewHandle{}, review([]checks.Finding{f}, []bot.Comment{comment(f, 6, 6, "")})); err != nil {
		t.Fatal(err)
	}
	posts := s.CallsTo("POST", "/discussions")
	if len(posts) != 1 || posts[0].Status != 400 {
		t.Fatalf("discussion posts = %+v, want one refused with 400", posts)
	}
	ds := s.Discussions(projectID, 1)
	if len(ds) != 1 || !strings.Contains(ds[0].Notes[0].Body, "deploy/app.yaml:6") {
		t.Errorf("discussions = %+v, want only the summary, naming the finding", ds)
	}
}

func TestFailEndsTheStatusFailed(t *testing.T) {
	s, pr := setup(t, map[string]string{"a.yaml": "a: 1\n"}, map[string]string{"a.yaml": "a: 2\n"})
	h, _ := newTestHost(t, s)
	ctx := context.Background()
	hd, err := h.StartReview(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	// Starting twice (a redelivery) is not an error: GitLab answers 400.
	if _, err := h.StartReview(ctx, pr); err != nil {
		t.Fatalf("second StartReview: %v", err)
	}
	if err := h.Fail(ctx, pr, hd, "reading the manifests failed: "+strings.Repeat("x", 400)); err != nil {
		t.Fatal(err)
	}
	st := s.Statuses()
	last := st[len(st)-1]
	if last.State != "failed" || !strings.HasPrefix(last.Description, "reading the manifests failed") || len([]rune(last.Description)) > 255 {
		t.Errorf("statuses = %+v, want failed with a clear description of at most 255 characters", st)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPublishAnchorsASuggestionStartingOnAContextLine(t *testing.T) {
	s, pr := setup(t, map[string]string{"deploy/app.yaml": baseApp}, map[string]string{"deploy/app.yaml": headApp})
	h, _ := newTestHost(t, s)
	ctx := context.Background()
	f := finding("replicas-too-low", 6)
	// Lines 5 (spec:, unchanged) and 6 (replicas, added).
	if err := h.Publish(ctx, pr, bot.ReviewHandle{}, review([]checks.Finding{f}, []bot.Comment{comment(f, 5, 6, "spec:\n  replicas: 3\n")})); err != nil {
		t.Fatal(err)
	}
	ds := s.Discussions(projectID, 1)
	if len(ds) != 2 || ds[0].Notes[0].Position == nil {
		t.Fatalf("discussions = %s, want the inline one and the summary", js(ds))
	}
	p := ds[0].Notes[0].Position
	if *p.NewLine != 5 || p.OldLine == nil || *p.OldLine != 5 ||
		p.LineRange.Start.LineCode != fakegitlab.LineCode("deploy/app.yaml", 5, 5) || p.LineRange.End.LineCode != fakegitlab.LineCode("deploy/app.yaml", 6, 6) {
		t.Errorf("position = %s, want new_line 5 with old_line 5 and codes _5_5.._6_6", js(p))
	}
	if !strings.Contains(ds[0].Notes[0].Body, "```suggestion:-0+1\n") {
		t.Errorf("body:\n%s", ds[0].Notes[0].Body)
	}
}

// TestEndStaleEndsARunningStatusOnce: a status a stopped replica left
// pending is ended failed with the note; one already ended is left alone.
func TestEndStaleEndsARunningStatusOnce(t *testing.T) {
	s, pr := setup(t, map[string]string{"a.yaml": "a: 1\n"}, map[string]string{"a.yaml": "a: 2\n"})
	h, _ := newTestHost(t, s)
	ctx := context.Background()
	if _, err := h.StartReview(ctx, pr); err != nil {
		t.Fatal(err)
	}
	var ender bot.StaleEnder = h
	ended, err := ender.EndStale(ctx, pr, bot.ReviewHandle{}, "prodready did not finish this review. Re-run the pipeline to review again.")
	if err != nil || !ended {
		t.Fatalf("EndStale = %v, %v", ended, err)
	}
	st := s.Statuses()
	if last := st[len(st)-1]; last.State != "failed" || !strings.Contains(last.Description, "Re-run") {
		t.Fatalf("statuses %+v, want the last failed with the note", st)
	}
	n := len(st)
	ended, err = ender.EndStale(ctx, pr, bot.ReviewHandle{}, "again")
	if err != nil || ended || len(s.Statuses()) != n {
		t.Errorf("EndStale of an ended status = %v, %v, %d statuses (was %d); want nothing done", ended, err, len(s.Statuses()), n)
	}
}
