package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	ghv "github.com/prodready/prodready/vcs/github"
)

// fixDone returns the "fix request done" log line of delivery, if r has
// logged it.
func (r *replica) fixDone(delivery string) (outcome string, ok bool) {
	sc := bufio.NewScanner(strings.NewReader(r.logs()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct{ Msg, Delivery, Outcome string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "fix request done" && line.Delivery == delivery {
			return line.Outcome, true
		}
	}
	return "", false
}

// TestServePressIsChecked runs `prodready serve` as a process against the
// fake GitHub: after the review of a pull request, presses that must not
// commit are delivered first (by a sender with read access only, on a
// check run another App created, of an action the run did not offer), and
// each ends refused, logged, with nothing committed and nothing written on
// the foreign run; then the author's press of the offered action commits
// once, and its redelivery commits nothing more.
func TestServePressIsChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	const secret = "press-checked-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	r, head, run := fixPullRequest(t, fake, keyFile, secretFile, secret, map[string]string{"alice": "write", "rita": "read"})
	foreign := fake.AddCheckRun("acme", "web", fakegithub.CheckRun{Name: run.Name, HeadSHA: head, ExternalID: "pr:1", AppID: 999,
		Status: "completed", Conclusion: "failure", Title: run.Title, Summary: run.Summary})

	press := func(delivery string, runID int64, identifier, sender string) {
		t.Helper()
		if code := r.deliverEvent(t, secret, "check_run", delivery, pressPayload(runID, run.Name, head, identifier, sender)); code != http.StatusAccepted {
			t.Fatalf("check_run delivery %s: %d", delivery, code)
		}
	}
	refused := func(delivery, why string) {
		t.Helper()
		waitFor(t, delivery+" done", func() bool { _, ok := r.fixDone(delivery); return ok })
		if outcome, _ := r.fixDone(delivery); outcome != "refused" {
			t.Errorf("%s: outcome %q, want refused", delivery, outcome)
		}
		if !strings.Contains(r.logs(), why) {
			t.Errorf("%s: the log does not say %q:\n%s", delivery, why, lastLines(r.logs(), 20))
		}
		if b := fake.Branch("acme", "web", "feature"); b != head || fake.Count(fakegithub.RouteCreateCommit) != 0 || fake.Count(fakegithub.RouteCreateBlob) != 0 {
			t.Fatalf("%s: the branch is at %s, %d commits and %d blobs written", delivery, b, fake.Count(fakegithub.RouteCreateCommit), fake.Count(fakegithub.RouteCreateBlob))
		}
	}
	ownText := func() string {
		for _, c := range fake.CheckRuns("acme", "web") {
			if c.ID == run.ID {
				return c.Text
			}
		}
		return ""
	}

	press("press-reader", run.ID, ghv.ActionApplyFixes, "rita")
	refused("press-reader", "has `read` access to acme/web")
	if text := ownText(); !strings.Contains(text, "Fixes not committed") || !strings.Contains(text, "`@rita` has `read` access") {
		t.Errorf("the refusal is not said on the check run:\n%s", text)
	}

	press("press-foreign", foreign, ghv.ActionApplyFixes, "alice")
	refused("press-foreign", "was created by GitHub App 999, not by prodready")
	for _, c := range fake.CheckRuns("acme", "web") {
		if c.ID == foreign && (c.Text != "" || c.Requests != 0) {
			t.Errorf("the foreign check run was written: %q", c.Text)
		}
	}

	press("press-unoffered", run.ID, ghv.ActionPatchFixes, "alice")
	refused("press-unoffered", "did not offer `patch-fixes`")
	if text := ownText(); !strings.Contains(text, "did not offer `patch-fixes`") {
		t.Errorf("the refusal is not said on the check run:\n%s", text)
	}

	press("press-author", run.ID, ghv.ActionApplyFixes, "alice")
	waitFor(t, "the author's press committed", func() bool { return fake.Branch("acme", "web", "feature") != head })
	_, files, _ := fake.Commit("acme", "web", fake.Branch("acme", "web", "feature"))
	if !strings.Contains(files["deploy/web.yaml"], "failureThreshold:") {
		t.Errorf("the fix commit's deploy/web.yaml:\n%s", files["deploy/web.yaml"])
	}
	press("press-author-again", run.ID, ghv.ActionApplyFixes, "alice")
	waitFor(t, "the second press done", func() bool { _, ok := r.fixDone("press-author-again"); return ok })
	if n := fake.Count(fakegithub.RouteCreateCommit); n != 1 {
		t.Errorf("%d commits created, want 1", n)
	}
	if outcome, _ := r.fixDone("press-author-again"); outcome != "duplicate" {
		t.Errorf("the second press of the author: outcome %q, want duplicate", outcome)
	}
}
