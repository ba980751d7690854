package gitlab_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/internal/fakegitlab"
	"github.com/prodready/prodready/vcs/gitlab"
)

// fixWeb has one finding with an exact fix (probes-identical) and several
// whose fixes are starting points.
const fixWeb = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.27
          readinessProbe:
            httpGet:
              path: /healthz
              port: 8080
          livenessProbe:
            httpGet:
              path: /healthz
              port: 8080
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              memory: 128Mi
`

const (
	fixProject = 7
	forkID     = 8
	developer  = 501
	reporter   = 502
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fixE2E is the server with reviews and fix requests on one pool, on a
// fake GitLab holding g/app!1 (feature adds deploy/web.yaml on main).
type fixE2E struct {
	gl         *fakegitlab.Server
	srv        *httptest.Server
	done       chan string
	logs       *lockedBuffer
	base, head string
}

func newFixE2E(t *testing.T, fork bool) *fixE2E {
	t.Helper()
	f := fakegitlab.New(e2eToken)
	t.Cleanup(f.Close)
	f.AddProject(fixProject, "g/app")
	e := &fixE2E{gl: f, done: make(chan string, 10), logs: &lockedBuffer{}}
	e.base = f.PushBranch(fixProject, "main", "init", map[string]string{"README.md": "hi\n"})
	f.SetBranch(fixProject, "feature", e.base)
	// The merge request turns the rule off in its own config: the config
	// is read at base.
	headFiles := map[string]string{"README.md": "hi\n", "deploy/web.yaml": fixWeb, ".prodready.yaml": "rules:\n  probes-identical: false\n"}
	if fork {
		f.AddProject(forkID, "forker/app")
		f.SetBranch(forkID, "feature", e.base)
		e.head = f.PushBranch(forkID, "feature", "add web", headFiles)
		f.CommitAs(fixProject, e.head, headFiles)       // GitLab keeps a fork's merge request head in the target
		f.SetMember(forkID, 900, fakegitlab.Maintainer) // the forker; the bot is none
	} else {
		e.head = f.PushBranch(fixProject, "feature", "add web", headFiles)
	}
	f.Push(fixProject, 1, e.base, e.head, 0)
	f.SetMember(fixProject, f.User.ID, fakegitlab.Maintainer)
	f.SetMember(fixProject, developer, fakegitlab.Developer)
	f.SetMember(fixProject, reporter, fakegitlab.Reporter)
	host, err := gitlab.NewHost(gitlab.Options{BaseURL: f.URL, Token: e2eToken, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(e.logs, nil))
	rv := bot.NewReviewer(bot.NewLRUCache(1<<20), logger)
	ap := bot.NewApplier(nil, nil, logger)
	pool := bot.NewPool(func(ctx context.Context, job bot.Job) error {
		err := bot.Dispatch(rv.Run, ap.Run)(ctx, job)
		e.done <- job.DeliveryID
		return err
	}, bot.PoolOptions{Workers: 1, QueueSize: 10, Logger: logger})
	pool.Start()
	t.Cleanup(func() { pool.Shutdown(context.Background()) })
	server := bot.NewServer(pool, nil, logger)
	server.Handle(http.MethodPost, "/webhooks/gitlab", &bot.Webhook{Intake: gitlab.Intake{API: host}, Secret: []byte(e2eSecret), Queue: pool, Logger: logger})
	server.SetReady(true)
	e.srv = httptest.NewServer(server.Handler())
	t.Cleanup(e.srv.Close)
	return e
}

// note writes body as user on the merge request and delivers its Note
// Hook; it returns the answer's status.
func (e *fixE2E) note(t *testing.T, uuid string, user int64, body string, fork bool) int {
	t.Helper()
	e.gl.AddNote(fixProject, 1, fakegitlab.User{ID: user, Username: "user"}, body, false)
	ds := e.gl.Discussions(fixProject, 1)
	d := ds[len(ds)-1]
	source := int64(fixProject)
	if fork {
		source = forkID
	}
	payload := map[string]any{
		"object_kind": "note", "event_type": "note",
		"user":              map[string]any{"id": user, "username": "user"},
		"project":           map[string]any{"id": fixProject, "path_with_namespace": "g/app"},
		"object_attributes": map[string]any{"id": d.Notes[0].ID, "note": body, "noteable_type": "MergeRequest", "discussion_id": d.ID, "system": false},
		"merge_request": map[string]any{"iid": 1, "state": "opened", "source_branch": "feature", "target_branch": "main",
			"source_project_id": source, "target_project_id": fixProject, "last_commit": map[string]any{"id": e.head}},
	}
	b, _ := json.Marshal(payload)
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/webhooks/gitlab", bytes.NewReader(b))
	req.Header.Set("X-Gitlab-Event", "Note Hook")
	req.Header.Set("X-Gitlab-Token", e2eSecret)
	req.Header.Set("X-Gitlab-Event-UUID", uuid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (e *fixE2E) wait(t *testing.T, delivery string) {
	t.Helper()
	select {
	case d := <-e.done:
		if d != "gitlab:"+delivery {
			t.Fatalf("job %s ended, want %s", d, delivery)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("job %s did not end; logs:\n%s", delivery, e.logs.String())
	}
}

// reply returns the bot's reply in the last thread.
func (e *fixE2E) reply(t *testing.T) string {
	t.Helper()
	ds := e.gl.Discussions(fixProject, 1)
	d := ds[len(ds)-1]
	if len(d.Notes) != 2 {
		t.Fatalf("the thread has %d notes, want the command and one reply; logs:\n%s", len(d.Notes), e.logs.String())
	}
	return d.Notes[1].Body
}

func rulesOf(data string) map[string]bool {
	res := checks.Run([]checks.Input{{Path: "deploy/web.yaml", Data: []byte(data)}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
	out := map[string]bool{}
	for _, f := range res.Findings {
		out[f.RuleID] = true
	}
	return out
}

func TestNoteFixCommitsExactFixes(t *testing.T) {
	e := newFixE2E(t, false)
	if code := e.note(t, "n1", developer, "/prodready fix", false); code != http.StatusAccepted {
		t.Fatalf("note: %d", code)
	}
	e.wait(t, "n1")
	sha := e.gl.Branch(fixProject, "feature")
	if sha == e.head {
		t.Fatalf("the branch did not move; reply: %s", e.reply(t))
	}
	msg, parents := e.gl.CommitMessage(fixProject, sha)
	files := e.gl.Files(fixProject, sha)
	if len(parents) != 1 || parents[0] != e.head || !strings.Contains(msg, "probes-identical") || !strings.Contains(msg, bot.FixesTrailer+": gitlab note ") {
		t.Errorf("commit %s (parents %v):\n%s", sha, parents, msg)
	}
	if rulesOf(files["deploy/web.yaml"])["probes-identical"] || !rulesOf(fixWeb)["probes-identical"] {
		t.Errorf("the fixed file still has probes-identical:\n%s", files["deploy/web.yaml"])
	}
	if r := e.reply(t); !strings.Contains(r, "Committed 1 fix") || !strings.Contains(r, "starting-point fixes not applied") {
		t.Errorf("reply:\n%s", r)
	}
	var commits int
	for _, c := range e.gl.CallsTo(http.MethodPost, "/repository/commits") {
		if !strings.Contains(c.Body, `"last_commit_id":"`+e.head+`"`) {
			t.Errorf("an action without last_commit_id %s: %s", e.head, c.Body)
		}
		commits++
	}
	if commits != 1 {
		t.Errorf("%d commits posted, want 1", commits)
	}
}

func TestNoteFixAllCommitsStartingPoints(t *testing.T) {
	e := newFixE2E(t, false)
	e.note(t, "n-all", developer, "/prodready fix all\nplease", false)
	e.wait(t, "n-all")
	files := e.gl.Files(fixProject, e.gl.Branch(fixProject, "feature"))
	before, after := rulesOf(fixWeb), rulesOf(files["deploy/web.yaml"])
	for _, rule := range []string{"probes-identical", "capabilities-not-dropped", "privilege-escalation-allowed"} {
		if !before[rule] || after[rule] {
			t.Errorf("%s: before %v, after %v", rule, before[rule], after[rule])
		}
	}
}

func TestNoteFixFromAReporterIsRefused(t *testing.T) {
	e := newFixE2E(t, false)
	e.note(t, "n-rep", reporter, "/prodready fix", false)
	e.wait(t, "n-rep")
	if e.gl.Branch(fixProject, "feature") != e.head || len(e.gl.CallsTo(http.MethodPost, "/repository/commits")) != 0 {
		t.Fatal("a Reporter's note committed")
	}
	if r := e.reply(t); !strings.Contains(r, "Developer role") || !strings.Contains(r, "access level 20") {
		t.Errorf("reply:\n%s", r)
	}
}

func TestOtherNotesStartNothing(t *testing.T) {
	e := newFixE2E(t, false)
	for i, body := range []string{"looks good", "please /prodready fix", "/prodready fixes"} {
		if code := e.note(t, "other-"+string(rune('a'+i)), developer, body, false); code != http.StatusOK {
			t.Errorf("%q: %d", body, code)
		}
	}
}

func TestNoteFixRacedByAPush(t *testing.T) {
	e := newFixE2E(t, false)
	// A push changes the same file after the note was written: the head
	// the note names is stale, so nothing is computed on it.
	e.gl.PushBranch(fixProject, "feature", "theirs", map[string]string{"README.md": "hi\n", "deploy/web.yaml": fixWeb + "# theirs\n"})
	pushed := e.gl.Branch(fixProject, "feature")
	e.note(t, "n-race", developer, "/prodready fix", false)
	e.wait(t, "n-race")
	if e.gl.Branch(fixProject, "feature") != pushed {
		t.Fatal("the push was overwritten")
	}
	if r := e.reply(t); !strings.Contains(r, "the branch moved") {
		t.Errorf("reply:\n%s", r)
	}
}

func TestNoteFixOnAProtectedBranch(t *testing.T) {
	e := newFixE2E(t, false)
	e.gl.ProtectBranch(fixProject, "feature")
	e.note(t, "n-prot", developer, "/prodready fix", false)
	e.wait(t, "n-prot")
	r := e.reply(t)
	if e.gl.Branch(fixProject, "feature") != e.head || !strings.Contains(r, "the branch is protected") || !strings.Contains(r, "```diff") {
		t.Errorf("reply:\n%s", r)
	}
}

func TestNoteFixOnAForkGetsAPatch(t *testing.T) {
	e := newFixE2E(t, true)
	e.note(t, "n-fork", developer, "/prodready fix", true)
	e.wait(t, "n-fork")
	r := e.reply(t)
	if !strings.Contains(r, "comes from a fork") || !strings.Contains(r, "```diff\n--- a/deploy/web.yaml") {
		t.Errorf("reply:\n%s", r)
	}
	if e.gl.Branch(forkID, "feature") != e.head {
		t.Error("the fork's branch moved")
	}
}

func TestNoteFixDuplicateDeliveryCommitsOnce(t *testing.T) {
	e := newFixE2E(t, false)
	e.note(t, "n-dup", developer, "/prodready fix", false)
	e.wait(t, "n-dup")
	sha := e.gl.Branch(fixProject, "feature")
	ds := e.gl.Discussions(fixProject, 1)
	d := ds[len(ds)-1]
	// The same note delivered again under another UUID (a retried hook).
	payload := map[string]any{
		"object_kind": "note", "user": map[string]any{"id": developer, "username": "user"},
		"project":           map[string]any{"id": fixProject, "path_with_namespace": "g/app"},
		"object_attributes": map[string]any{"id": d.Notes[0].ID, "note": "/prodready fix", "noteable_type": "MergeRequest", "discussion_id": d.ID},
		"merge_request": map[string]any{"iid": 1, "state": "opened", "source_branch": "feature", "target_branch": "main",
			"source_project_id": fixProject, "target_project_id": fixProject, "last_commit": map[string]any{"id": e.head}},
	}
	b, _ := json.Marshal(payload)
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/webhooks/gitlab", bytes.NewReader(b))
	req.Header.Set("X-Gitlab-Event", "Note Hook")
	req.Header.Set("X-Gitlab-Token", e2eSecret)
	req.Header.Set("X-Gitlab-Event-UUID", "n-dup-again")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	e.wait(t, "n-dup-again")
	if e.gl.Branch(fixProject, "feature") != sha || len(e.gl.CallsTo(http.MethodPost, "/repository/commits")) != 1 {
		t.Error("the duplicate committed again")
	}
	if n := len(e.gl.Discussions(fixProject, 1)[len(ds)-1].Notes); n != 2 {
		t.Errorf("the duplicate replied again: %d notes", n)
	}
}

// A push that changes a file between the computation and the commit makes
// GitLab refuse the commit on last_commit_id: nothing is overwritten.
func TestCommitFixesGuardedByLastCommitID(t *testing.T) {
	e := newFixE2E(t, false)
	host, err := gitlab.NewHost(gitlab.Options{BaseURL: e.gl.URL, Token: e2eToken, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	theirs := e.gl.PushBranch(fixProject, "feature", "theirs", map[string]string{"README.md": "hi\n", "deploy/web.yaml": fixWeb + "# theirs\n"})
	pr := bot.PullRequest{Host: "gitlab", Repo: "g/app", RepoID: fixProject, Number: 1, HeadRef: "feature"}
	_, err = host.CommitFixes(context.Background(), pr, bot.FixCommit{Branch: "feature", Parent: e.head, Message: "fix",
		Files: []bot.File{{Path: "deploy/web.yaml", Data: []byte("fixed\n")}}})
	if !errors.Is(err, bot.ErrHeadMoved) || !strings.Contains(err.Error(), "changed since you started editing it") {
		t.Fatalf("err = %v, want ErrHeadMoved from GitLab's last_commit_id check", err)
	}
	if e.gl.Branch(fixProject, "feature") != theirs {
		t.Error("their push was overwritten")
	}
}
