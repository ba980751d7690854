package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegitlab"
	"github.com/prodready/prodready/internal/testconfig"
)

// deliverGitLab posts a GitLab webhook delivery of event ("Merge Request
// Hook", "Note Hook") to r with the secret token and the delivery's UUID,
// and returns the answer's status.
func (r *replica) deliverGitLab(t *testing.T, secret, event, uuid string, payload any) int {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/webhooks/gitlab", bytes.NewReader(body))
	req.Header.Set("X-Gitlab-Event", event)
	req.Header.Set("X-Gitlab-Token", secret)
	req.Header.Set("X-Gitlab-Event-UUID", uuid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("delivering %s: %v", uuid, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// startGitLabServe writes the token and the webhook secret to files, as
// deploy/ mounts them, and starts `prodready serve` as a process with
// GitLab alone configured against gl, on its embedded queue; extra are
// further flags.
func startGitLabServe(t *testing.T, name string, gl *fakegitlab.Server, token, secret string, extra ...string) *replica {
	t.Helper()
	dir := t.TempDir()
	tokenFile, secretFile := filepath.Join(dir, "token"), filepath.Join(dir, "secret")
	os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)
	os.WriteFile(secretFile, []byte(secret+"\n"), 0o600)
	return startReplica(t, name, append([]string{"--gitlab-url", gl.URL, "--gitlab-token-file", tokenFile, "--gitlab-webhook-secret-file", secretFile,
		"--data-dir", filepath.Join(dir, "nats")}, extra...))
}

// mergeRequestOpened is the Merge Request Hook delivery of user opening
// merge request 1 of project g/app, from branch feature at head into
// main, as GitLab sends it.
func mergeRequestOpened(project, user int, head string) map[string]any {
	return map[string]any{
		"object_kind": "merge_request", "event_type": "merge_request",
		"user":    map[string]any{"id": user, "username": "dev"},
		"project": map[string]any{"id": project, "path_with_namespace": "g/app"},
		"object_attributes": map[string]any{"iid": 1, "action": "open", "state": "opened", "source_branch": "feature", "target_branch": "main",
			"source_project_id": project, "target_project_id": project, "url": "https://gitlab.example.com/g/app/-/merge_requests/1",
			"last_commit": map[string]any{"id": head}},
	}
}

// gitLabMergeRequest is a fake GitLab (token) holding project g/app (id
// project) whose main branch holds base's files and whose feature branch
// holds head's, with merge request 1 from feature into main; the bot is a
// Maintainer of it and developer, when not 0, a Developer. It returns the
// fake and the feature branch's commit.
func gitLabMergeRequest(t *testing.T, token string, project, developer int64, base, head map[string]string) (*fakegitlab.Server, string) {
	t.Helper()
	gl := fakegitlab.New(token)
	t.Cleanup(gl.Close)
	gl.AddProject(project, "g/app")
	baseSHA := gl.PushBranch(project, "main", "init", base)
	gl.SetBranch(project, "feature", baseSHA)
	headSHA := gl.PushBranch(project, "feature", "change", head)
	gl.Push(project, 1, baseSHA, headSHA, 0)
	gl.SetMember(project, gl.User.ID, fakegitlab.Maintainer)
	if developer != 0 {
		gl.SetMember(project, developer, fakegitlab.Developer)
	}
	return gl, headSHA
}

// waitForGitLabReview waits until the review of head has set its commit
// status (to any state but pending or running).
func waitForGitLabReview(t *testing.T, gl *fakegitlab.Server, head string) {
	t.Helper()
	waitFor(t, "the review's commit status", func() bool {
		for _, s := range gl.Statuses() {
			if s.SHA == head && s.State != "pending" && s.State != "running" {
				return true
			}
		}
		return false
	})
}

// botDiffThreads are the first notes of the bot's diff threads on merge
// request 1 of project.
// gitLabReviewThreads opens a merge request from base to head on a fake
// GitLab (project, by developer), has `serve` (named name) review it,
// and returns the bot's diff threads on new lines, each as
// "path:line\nbody".
func gitLabReviewThreads(t *testing.T, name string, project, developer int64, base, head map[string]string) []string {
	t.Helper()
	token, secret := "glpat-"+name, name+"-secret"
	gl, sha := gitLabMergeRequest(t, token, project, developer, base, head)
	r := startGitLabServe(t, name, gl, token, secret)
	if code := r.deliverGitLab(t, secret, "Merge Request Hook", "mr-open", mergeRequestOpened(int(project), int(developer), sha)); code != http.StatusAccepted {
		t.Fatalf("Merge Request Hook: %d", code)
	}
	waitForGitLabReview(t, gl, sha)
	var threads []string
	for _, n := range botDiffThreads(gl, project) {
		if n.Position.NewLine != nil {
			threads = append(threads, fmt.Sprintf("%s:%d\n%s", n.Position.NewPath, *n.Position.NewLine, n.Body))
		}
	}
	return threads
}

func botDiffThreads(gl *fakegitlab.Server, project int64) []*fakegitlab.Note {
	var out []*fakegitlab.Note
	for _, d := range gl.Discussions(project, 1) {
		if n := d.Notes[0]; n.Author.ID == gl.User.ID && n.Position != nil {
			out = append(out, n)
		}
	}
	return out
}

// commandNote is the Note Hook delivery of user's note text (its id and
// discussion's) on merge request 1 of project, whose source branch is at
// head, as GitLab sends it.
func commandNote(project, user int, head string, noteID int64, discussion, text string) map[string]any {
	mr := map[string]any{"iid": 1, "state": "opened", "source_branch": "feature", "target_branch": "main",
		"source_project_id": project, "target_project_id": project, "last_commit": map[string]any{"id": head}}
	return map[string]any{
		"object_kind": "note", "event_type": "note",
		"user":              map[string]any{"id": user, "username": "dev"},
		"project":           map[string]any{"id": project, "path_with_namespace": "g/app"},
		"object_attributes": map[string]any{"id": noteID, "note": text, "noteable_type": "MergeRequest", "discussion_id": discussion, "system": false},
		"merge_request":     mr,
	}
}

// TestServeGitLabReviewThenNoteFixCommitsOnce runs `prodready serve` as a
// process with only GitLab configured, on its embedded queue, against the
// fake GitLab: a merge request's opening is reviewed (a diff thread on
// the finding's line, a failed commit status), then a Developer's
// `/prodready fix` note commits the exact fix to the source branch once,
// replied to in the note's thread; the note delivered again, under its
// UUID or another, commits nothing more.
func TestServeGitLabReviewThenNoteFixCommitsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	const (
		token, secret = "glpat-serve-e2e", "gitlab-serve-secret"
		project       = 7
		developer     = 501
	)
	// The finding is a warning: failOn warning makes the review fail.
	config := strings.Replace(testconfig.OnlyRule("probes-identical"), "failOn: error", "failOn: warning", 1)
	gl, head := gitLabMergeRequest(t, token, project, developer, map[string]string{"README.md": "hi\n", ".prodready.yaml": config},
		map[string]string{"README.md": "hi\n", ".prodready.yaml": config, "deploy/web.yaml": fixManifest})

	r := startGitLabServe(t, "gitlab", gl, token, secret, "--queue-backoff", "100ms")
	if code := r.deliverGitLab(t, secret, "Merge Request Hook", "mr-open", mergeRequestOpened(project, developer, head)); code != http.StatusAccepted {
		t.Fatalf("Merge Request Hook: %d", code)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, c := range gl.Calls() {
				t.Logf("fake GitLab: %s %s %d", c.Method, c.Path, c.Status)
			}
		}
	})
	var thread *fakegitlab.Discussion
	waitFor(t, "the review's failed commit status", func() bool {
		for _, s := range gl.Statuses() {
			if s.SHA == head && s.State == "failed" {
				return true
			}
		}
		return false
	})
	for _, d := range gl.Discussions(project, 1) {
		if n := d.Notes[0]; n.Author.ID == gl.User.ID && n.Position != nil {
			if thread != nil {
				t.Errorf("a second diff thread: %s", n.Body)
			}
			thread = &d
		}
	}
	if thread == nil || thread.Notes[0].Position.NewPath != "deploy/web.yaml" || !strings.Contains(thread.Notes[0].Body, "probes-identical") {
		t.Fatalf("no diff thread about probes-identical on deploy/web.yaml: %+v", gl.Discussions(project, 1))
	}
	// A warning about a container is the container's thread, anchored
	// at its "- name: web" line.
	if l := thread.Notes[0].Position.NewLine; l == nil || *l != 13 {
		t.Errorf("the thread is at line %v, want 13 (the container's - name: line)", thread.Notes[0].Position.NewLine)
	}

	// A Developer asks for the fix.
	gl.AddNote(project, 1, fakegitlab.User{ID: developer, Username: "dev"}, "/prodready fix", true)
	ds := gl.Discussions(project, 1)
	cmd := ds[len(ds)-1]
	note := commandNote(project, developer, head, cmd.Notes[0].ID, cmd.ID, "/prodready fix")
	if code := r.deliverGitLab(t, secret, "Note Hook", "note-1", note); code != http.StatusAccepted {
		t.Fatalf("Note Hook: %d", code)
	}
	waitFor(t, "the fix request done", func() bool { _, ok := r.fixDone("gitlab:note-1"); return ok })
	if outcome, _ := r.fixDone("gitlab:note-1"); outcome != "committed" {
		t.Fatalf("the fix request ended %q, want committed\n%s", outcome, lastLines(r.logs(), 20))
	}
	sha := gl.Branch(project, "feature")
	msg, parents := gl.CommitMessage(project, sha)
	if sha == head || len(parents) != 1 || parents[0] != head || !strings.Contains(msg, "probes-identical") {
		t.Errorf("the fix commit %s (parents %v):\n%s", sha, parents, msg)
	}
	if got := gl.Files(project, sha)["deploy/web.yaml"]; !strings.Contains(got, "failureThreshold:") {
		t.Errorf("the fixed deploy/web.yaml:\n%s", got)
	}
	replies := func() int { return len(gl.Discussions(project, 1)[len(ds)-1].Notes) }
	if n := replies(); n != 2 || !strings.Contains(gl.Discussions(project, 1)[len(ds)-1].Notes[1].Body, "Committed 1 fix") {
		t.Errorf("the note's thread has %d notes; want the command and the bot's reply", n)
	}

	// The same note again: the same UUID is the queue's duplicate; another
	// UUID (a retried hook) runs and finds the fix already done.
	if code := r.deliverGitLab(t, secret, "Note Hook", "note-1", note); code != http.StatusOK {
		t.Errorf("the note redelivered answered %d, want 200 (duplicate)", code)
	}
	if code := r.deliverGitLab(t, secret, "Note Hook", "note-1-retry", note); code != http.StatusAccepted {
		t.Fatalf("the note under another UUID: %d", code)
	}
	waitFor(t, "the retried note done", func() bool { _, ok := r.fixDone("gitlab:note-1-retry"); return ok })
	if outcome, _ := r.fixDone("gitlab:note-1-retry"); outcome != "duplicate" {
		t.Errorf("the retried note ended %q, want duplicate", outcome)
	}
	if n := len(gl.CallsTo(http.MethodPost, "/repository/commits")); n != 1 || gl.Branch(project, "feature") != sha {
		t.Errorf("%d commits posted, branch at %s; want one, at %s", n, gl.Branch(project, "feature"), sha)
	}
	if n := replies(); n != 2 {
		t.Errorf("the note's thread has %d notes after the redeliveries, want 2", n)
	}
}
