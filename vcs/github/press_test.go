package github_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	ghv "github.com/prodready/prodready/vcs/github"
)

// pressAs delivers a press of identifier on run by sender, with the head
// the press names.
func (st *fixStack) pressAs(t *testing.T, delivery string, run fakegithub.CheckRun, identifier, sender, head string) {
	t.Helper()
	prs := []any{map[string]any{"number": 1, "head": map[string]any{"ref": "feature", "sha": head, "repo": map[string]any{"id": 1, "name": "r"}}, "base": map[string]any{"ref": "main", "sha": fixBase, "repo": map[string]any{"id": 1, "name": "r"}}}}
	code := st.deliver(t, "check_run", delivery, map[string]any{
		"action":           "requested_action",
		"check_run":        map[string]any{"id": run.ID, "name": run.Name, "head_sha": head, "external_id": "pr:1", "pull_requests": prs, "app": map[string]any{"id": testAppID}},
		"requested_action": map[string]any{"identifier": identifier},
		"repository":       fixRepo, "installation": map[string]any{"id": fixInst},
		"sender": map[string]any{"login": sender, "type": "User"},
	})
	if code != http.StatusAccepted {
		t.Fatalf("press %s: %d", delivery, code)
	}
	st.wait(t, delivery)
}

// nothingCommitted fails unless the branch is at fixHead and no Git Data
// write was made.
func (st *fixStack) nothingCommitted(t *testing.T) {
	t.Helper()
	if b := st.fake.Branch("o", "r", "feature"); b != fixHead {
		t.Errorf("the branch moved to %s", b)
	}
	for _, route := range []string{fakegithub.RouteCreateBlob, fakegithub.RouteCreateTree, fakegithub.RouteCreateCommit, fakegithub.RouteUpdateRef} {
		if n := st.fake.Count(route); n != 0 {
			t.Errorf("%s called %d times for a refused press", route, n)
		}
	}
}

// runByID is the fake's check run id.
func (st *fixStack) runByID(t *testing.T, id int64) fakegithub.CheckRun {
	t.Helper()
	for _, r := range st.fake.CheckRuns("o", "r") {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no check run %d", id)
	return fakegithub.CheckRun{}
}

// TestPressBySenderWithoutWriteIsRefused: a reader, a triager and a user
// who is no collaborator press Apply fixes on the bot's own run; nothing is
// committed, the run's text says why, and the log names the refusal.
func TestPressBySenderWithoutWriteIsRefused(t *testing.T) {
	for _, tc := range []struct{ login, role, want string }{
		{"reader", "read", "`@reader` has `read` access to o/r"},
		{"triager", "triage", "`@triager` has `triage` access to o/r"},
		{"passer", "", "`@passer` has `read` access to o/r"},
		{"ghost", "-", "`@ghost` is not a collaborator of o/r"},
	} {
		t.Run(tc.login, func(t *testing.T) {
			st := newFixStack(t, false)
			if tc.role != "-" {
				st.fake.SetCollaborator("o", "r", tc.login, tc.role)
			}
			run := st.review(t)
			st.pressAs(t, "press-"+tc.login, run, ghv.ActionApplyFixes, tc.login, fixHead)
			st.nothingCommitted(t)
			after := st.runByID(t, run.ID)
			if !strings.Contains(after.Text, "Fixes not committed") || !strings.Contains(after.Text, tc.want) {
				t.Errorf("check run text:\n%s", after.Text)
			}
			if after.Summary != run.Summary || after.Conclusion != run.Conclusion {
				t.Errorf("the refusal changed the review's summary or conclusion")
			}
			if !strings.Contains(st.logs.String(), `"msg":"fix request refused"`) || !strings.Contains(st.logs.String(), tc.want[:10]) {
				t.Errorf("the refusal is not logged:\n%s", st.logs.String())
			}
		})
	}
}

// TestPressOnAForeignCheckRunIsRefused: presses naming a check run another
// App created, one of another pull request, another check's name and a run
// GitHub does not have commit nothing, and nothing is written on those
// runs (the refusal is logged).
func TestPressOnAForeignCheckRunIsRefused(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	foreign := []fakegithub.CheckRun{
		{Name: "prodready", HeadSHA: fixHead, ExternalID: "pr:1", AppID: 999, Status: "completed", Conclusion: "failure", Title: "t", Summary: run.Summary},
		{Name: "prodready", HeadSHA: fixHead, ExternalID: "pr:2", Status: "completed", Conclusion: "failure", Title: "t", Summary: run.Summary},
		{Name: "lint", HeadSHA: fixHead, ExternalID: "pr:1", Status: "completed", Conclusion: "failure", Title: "t", Summary: run.Summary},
	}
	wants := []string{"was created by GitHub App 999, not by prodready", "is not the review of o/r#1", "is `lint`, not prodready's"}
	for i, fr := range foreign {
		fr.ID = st.fake.AddCheckRun("o", "r", fr)
		st.pressAs(t, fmt.Sprintf("press-foreign-%d", i), fr, ghv.ActionApplyFixes, "alice", fixHead)
		if got := st.runByID(t, fr.ID); got.Text != "" || got.Requests != 0 {
			t.Errorf("run %d was written: %q", fr.ID, got.Text)
		}
		if !strings.Contains(st.logs.String(), wants[i]) {
			t.Errorf("the refusal %q is not logged:\n%s", wants[i], st.logs.String())
		}
	}
	st.pressAs(t, "press-missing", fakegithub.CheckRun{ID: 123456, Name: "prodready"}, ghv.ActionApplyFixes, "alice", fixHead)
	if !strings.Contains(st.logs.String(), "check run 123456 is not one of o/r") {
		t.Errorf("the press on a run GitHub does not have is not logged as refused:\n%s", st.logs.String())
	}
	st.nothingCommitted(t)
	if got := st.runByID(t, run.ID); got.Text != "" {
		t.Errorf("the bot's own run was written: %s", got.Text)
	}
}

// TestPressOfAnActionNotOfferedIsRefused: the patch actions are offered
// only on a fork's pull request, and a run completed without buttons (the
// App without Contents: write at review time) offered none; a press of
// them commits nothing and the run says so. A press naming another commit
// than the run's is refused too.
func TestPressOfAnActionNotOfferedIsRefused(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	st.pressAs(t, "press-patch", run, ghv.ActionPatchFixes, "alice", fixHead)
	st.nothingCommitted(t)
	if text := st.runByID(t, run.ID).Text; !strings.Contains(text, "did not offer `patch-fixes` (it offered apply-fixes, apply-all-fixes)") {
		t.Errorf("check run text:\n%s", text)
	}
	st.pressAs(t, "press-other-head", run, ghv.ActionApplyFixes, "alice", "e000000000000000000000000000000000000005")
	st.nothingCommitted(t)
	if text := st.runByID(t, run.ID).Text; !strings.Contains(text, "the press names commit e000000, but check run") {
		t.Errorf("check run text:\n%s", text)
	}

	st = newFixStack(t, false)
	st.fake.SetPermissions(fixInst, fakegithub.DefaultPermissions)
	run = st.review(t)
	st.fake.SetPermissions(fixInst, map[string]string{"contents": "write", "checks": "write", "pull_requests": "write", "metadata": "read"})
	st.pressAs(t, "press-unoffered", run, ghv.ActionApplyFixes, "alice", fixHead)
	st.nothingCommitted(t)
	if text := st.runByID(t, run.ID).Text; !strings.Contains(text, "did not offer `apply-fixes` (it offered none)") {
		t.Errorf("check run text:\n%s", text)
	}
}

// TestPressByAMaintainerCommits: maintain is write in the API's legacy
// permission, and may press.
func TestPressByAMaintainerCommits(t *testing.T) {
	st := newFixStack(t, false)
	st.fake.SetCollaborator("o", "r", "mia", "maintain")
	run := st.review(t)
	st.pressAs(t, "press-mia", run, ghv.ActionApplyFixes, "mia", fixHead)
	if st.fake.Branch("o", "r", "feature") == fixHead || st.fake.Count(fakegithub.RouteCreateCommit) != 1 {
		t.Errorf("a maintainer's press committed nothing:\n%s", st.runByID(t, run.ID).Text)
	}
}
