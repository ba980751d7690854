package github_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/internal/fakegithub"
	ghv "github.com/prodready/prodready/vcs/github"
	"sigs.k8s.io/yaml"
)

// webYAML has one finding with an exact fix (probes-identical) and
// several whose fixes are starting points.
const webYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 1
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
          ports:
            - containerPort: 8080
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
	fixBase = "b000000000000000000000000000000000000001"
	fixHead = "c000000000000000000000000000000000000002"
	fixInst = 3
)

// fixStack is the server with reviews and fix requests dispatched to one
// pool, on a fake GitHub holding o/r#1: main at fixBase, feature at
// fixHead, which adds deploy/web.yaml and a .prodready.yaml that turns
// probes-identical off (the config at base is the one read).
type fixStack struct {
	fake *fakegithub.Server
	srv  *httptest.Server
	app  *ghv.App
	done chan string
	logs *bytes.Buffer
	// headRepo is the head branch's repository ("forker/r" for a fork).
	headRepo string
}

func newFixStack(t *testing.T, fork bool) *fixStack {
	t.Helper()
	keyPEM, pub := testKey(t)
	st := &fixStack{fake: fakegithub.New(testAppID, pub), done: make(chan string, 20), logs: &bytes.Buffer{}}
	t.Cleanup(st.fake.Close)
	f := st.fake
	f.AddCommit("o", "r", fixBase, map[string]string{"README.md": "hello\n"})
	f.SetBranch("o", "r", "main", fixBase)
	headFiles := map[string]string{"README.md": "hello\n", "deploy/web.yaml": webYAML, ".prodready.yaml": "rules:\n  probes-identical: false\n"}
	headRepo := "o/r"
	if fork {
		headRepo = "forker/r"
		f.AddCommit("o", "r", fixHead, headFiles) // GitHub keeps a fork's commits under refs/pull/1/head
		f.SetParents("o", "r", fixHead, "add web", fixBase)
		f.SetRepositories(fixInst, "o/r")
	} else {
		f.SetBranch("o", "r", "feature", fixBase)
		f.Push("o", "r", "feature", fixHead, headFiles)
	}
	f.SetPR("o", "r", 1, fixBase, fixHead)
	f.SetPRBranches("o", "r", 1, fakegithub.PRBranches{BaseRef: "main", HeadRef: "feature", HeadRepo: headRepo})
	f.SetPermissions(fixInst, map[string]string{"contents": "write", "checks": "write", "pull_requests": "write", "metadata": "read"})
	f.SetCollaborator("o", "r", "alice", "write") // who presses (press)
	logger := slog.New(slog.NewJSONHandler(&syncBuffer{b: st.logs}, nil))
	app, err := ghv.NewApp(ghv.AppConfig{AppID: testAppID, PrivateKey: keyPEM, BaseURL: f.URL, BotLogin: fakegithub.BotLogin})
	if err != nil {
		t.Fatal(err)
	}
	app.Retry().Sleep = func(context.Context, time.Duration) error { return nil }
	st.app, st.headRepo = app, headRepo
	cache := bot.NewLRUCache(1 << 20)
	rv := bot.NewReviewer(cache, logger)
	ap := bot.NewApplier(cache, nil, logger)
	ap.Scope = rv.ReportedScope // as prodready serve does
	pool := bot.NewPool(func(ctx context.Context, job bot.Job) error {
		err := bot.Dispatch(rv.Run, ap.Run)(ctx, job)
		st.done <- job.DeliveryID
		return err
	}, bot.PoolOptions{Workers: 2, QueueSize: 10, Logger: logger})
	pool.Start()
	t.Cleanup(func() { pool.Shutdown(context.Background()) })
	server := bot.NewServer(pool, nil, logger)
	server.Handle(http.MethodPost, "/webhooks/github", &bot.Webhook{Intake: ghv.Intake{HostFor: app.Host}, Secret: []byte(testSecret), Queue: pool, Logger: logger})
	server.SetReady(true)
	st.srv = httptest.NewServer(server.Handler())
	t.Cleanup(st.srv.Close)
	return st
}

func (st *fixStack) deliver(t *testing.T, event, delivery string, payload any) int {
	t.Helper()
	body, _ := json.Marshal(payload)
	req, _ := http.NewRequest(http.MethodPost, st.srv.URL+"/webhooks/github", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", ghv.Sign([]byte(testSecret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (st *fixStack) wait(t *testing.T, delivery string) {
	t.Helper()
	select {
	case d := <-st.done:
		if d != delivery {
			t.Fatalf("job %s ended, want %s", d, delivery)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("job %s did not end; logs:\n%s", delivery, st.logs.String())
	}
}

var fixRepo = map[string]any{"id": 1, "name": "r", "full_name": "o/r", "owner": map[string]any{"login": "o"}}

// review runs the review of the pull request and returns its check run.
func (st *fixStack) review(t *testing.T) fakegithub.CheckRun {
	t.Helper()
	pr := map[string]any{"number": 1, "head": map[string]any{"ref": "feature", "sha": fixHead, "repo": map[string]any{"full_name": st.headRepo}}, "base": map[string]any{"ref": "main", "sha": fixBase, "repo": map[string]any{"full_name": "o/r"}}}
	if code := st.deliver(t, "pull_request", "review-1", map[string]any{"action": "opened", "number": 1, "pull_request": pr, "repository": fixRepo, "installation": map[string]any{"id": fixInst}}); code != http.StatusAccepted {
		t.Fatalf("pull_request: %d", code)
	}
	st.wait(t, "review-1")
	runs := st.fake.CheckRuns("o", "r")
	if len(runs) != 1 || runs[0].Status != "completed" {
		t.Fatalf("check runs after the review: %+v\n%s", runs, st.logs.String())
	}
	return runs[0]
}

// press delivers a press of identifier on run; withPR false leaves the
// check run's pull_requests empty, as GitHub sends it for a fork.
func (st *fixStack) press(t *testing.T, delivery string, run fakegithub.CheckRun, identifier string, withPR bool) int {
	t.Helper()
	prs := []any{}
	if withPR {
		prs = append(prs, map[string]any{"number": 1, "head": map[string]any{"ref": "feature", "sha": fixHead, "repo": map[string]any{"id": 1, "name": "r"}}, "base": map[string]any{"ref": "main", "sha": fixBase, "repo": map[string]any{"id": 1, "name": "r"}}})
	}
	return st.deliver(t, "check_run", delivery, map[string]any{
		"action":           "requested_action",
		"check_run":        map[string]any{"id": run.ID, "name": run.Name, "head_sha": run.HeadSHA, "external_id": "pr:1", "pull_requests": prs},
		"requested_action": map[string]any{"identifier": identifier},
		"repository":       fixRepo, "installation": map[string]any{"id": fixInst},
		"sender": map[string]any{"login": "alice", "type": "User"},
	})
}

func findingsOf(t *testing.T, path, data string) []checks.Finding {
	t.Helper()
	res := checks.Run([]checks.Input{{Path: path, Data: []byte(data)}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
	return res.Findings
}

func hasRule(fs []checks.Finding, rule string) bool {
	for _, f := range fs {
		if f.RuleID == rule {
			return true
		}
	}
	return false
}

func TestApplyFixesCommitsToTheBranch(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	if code := st.press(t, "press-1", run, ghv.ActionApplyFixes, true); code != http.StatusAccepted {
		t.Fatalf("press: %d", code)
	}
	st.wait(t, "press-1")
	sha := st.fake.Branch("o", "r", "feature")
	if sha == fixHead {
		t.Fatalf("the branch did not move; logs:\n%s", st.logs.String())
	}
	info, files, ok := st.fake.Commit("o", "r", sha)
	if !ok || len(info.Parents) != 1 || info.Parents[0] != fixHead || info.Author != fakegithub.BotLogin {
		t.Fatalf("commit %s: %+v", sha, info)
	}
	// The commit's tree holds the fixed file, and prodready check of it no
	// longer has the finding fixed; the starting points are not applied.
	after := findingsOf(t, "deploy/web.yaml", files["deploy/web.yaml"])
	if hasRule(after, "probes-identical") || !hasRule(findingsOf(t, "deploy/web.yaml", webYAML), "probes-identical") {
		t.Errorf("probes-identical is still found in the fixed file:\n%s", files["deploy/web.yaml"])
	}
	if !strings.Contains(files["deploy/web.yaml"], "replicas: 1") || files["README.md"] != "hello\n" || files[".prodready.yaml"] == "" {
		t.Errorf("the commit changed more than the exact fix:\n%v", files)
	}
	for _, want := range []string{"prodready: fix 1 finding", "- deploy/web.yaml:", "probes-identical: ", "@alice", bot.FixesTrailer + ": github check run"} {
		if !strings.Contains(info.Message, want) {
			t.Errorf("commit message lacks %q:\n%s", want, info.Message)
		}
	}
	if got := strings.Count(info.Message, "\n- "); got != 1 {
		t.Errorf("the message lists %d findings, want 1:\n%s", got, info.Message)
	}
	report := st.fake.CheckRuns("o", "r")[0]
	if report.Title != run.Title || report.Summary != run.Summary || !strings.Contains(report.Text, "Committed 1 fix in") || !strings.Contains(report.Text, "starting-point fixes not applied") {
		t.Errorf("check run after the press: title %q, text:\n%s", report.Title, report.Text)
	}

	// The same press delivered again (GitHub retries; a second click on the
	// stale run) commits nothing and posts nothing.
	commits := st.fake.Count(fakegithub.RouteCreateCommit)
	updates := st.fake.CheckRuns("o", "r")[0].Requests
	if code := st.press(t, "press-1-again", run, ghv.ActionApplyFixes, true); code != http.StatusAccepted {
		t.Fatalf("second press: %d", code)
	}
	st.wait(t, "press-1-again")
	if st.fake.Branch("o", "r", "feature") != sha || st.fake.Count(fakegithub.RouteCreateCommit) != commits || st.fake.CheckRuns("o", "r")[0].Requests != updates {
		t.Errorf("a duplicate press committed or posted again")
	}
	if !strings.Contains(st.logs.String(), `"outcome":"duplicate"`) {
		t.Errorf("the duplicate is not logged as one:\n%s", st.logs.String())
	}
	// The same delivery id is not even queued.
	if code := st.press(t, "press-1", run, ghv.ActionApplyFixes, true); code != http.StatusOK {
		t.Errorf("redelivery of a completed delivery: %d", code)
	}
}

func TestApplyAllFixesCommitsStartingPoints(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	st.press(t, "press-all", run, ghv.ActionApplyAllFixes, true)
	st.wait(t, "press-all")
	_, files, _ := st.fake.Commit("o", "r", st.fake.Branch("o", "r", "feature"))
	before, after := findingsOf(t, "deploy/web.yaml", webYAML), findingsOf(t, "deploy/web.yaml", files["deploy/web.yaml"])
	fixable := func(fs []checks.Finding) int {
		n := 0
		for _, f := range fs {
			if f.Fixable() {
				n++
			}
		}
		return n
	}
	if fixable(before) < 2 || fixable(after) != 0 {
		t.Errorf("fixable findings %d before, %d after:\n%s", fixable(before), fixable(after), files["deploy/web.yaml"])
	}
	if text := st.fake.CheckRuns("o", "r")[0].Text; !strings.Contains(text, fmt.Sprintf("Committed %d fixes", fixable(before))) {
		t.Errorf("check run text:\n%s", text)
	}
}

func TestApplyFixesUnknownActionIgnored(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	if code := st.press(t, "press-x", run, "delete-branch", true); code != http.StatusOK {
		t.Errorf("an identifier the bot does not offer: %d", code)
	}
	if st.fake.Branch("o", "r", "feature") != fixHead {
		t.Error("the branch moved")
	}
}

func TestApplyFixesRacedByAPush(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	reached, release := st.fake.Hold(http.MethodPatch, "/repos/o/r/git/refs/")
	defer release()
	st.press(t, "press-race", run, ghv.ActionApplyFixes, true)
	<-reached
	// Someone pushes while the bot's ref update is on its way.
	theirs := "d000000000000000000000000000000000000003"
	st.fake.Push("o", "r", "feature", theirs, map[string]string{"README.md": "theirs\n", "deploy/web.yaml": webYAML})
	release()
	st.wait(t, "press-race")
	if got := st.fake.Branch("o", "r", "feature"); got != theirs {
		t.Fatalf("the branch is at %s, want their push %s", got, theirs)
	}
	text := st.fake.CheckRuns("o", "r")[0].Text
	if !strings.Contains(text, "the branch moved") || !strings.Contains(text, "nothing was overwritten") {
		t.Errorf("check run text:\n%s", text)
	}
}

func TestApplyFixesAfterThePushMoved(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	st.fake.Push("o", "r", "feature", "e000000000000000000000000000000000000004", map[string]string{"deploy/web.yaml": webYAML})
	st.press(t, "press-late", run, ghv.ActionApplyFixes, true)
	st.wait(t, "press-late")
	if st.fake.Count(fakegithub.RouteCreateBlob) != 0 {
		t.Error("blobs were written for a press whose head moved")
	}
	if text := st.fake.CheckRuns("o", "r")[0].Text; !strings.Contains(text, "the branch moved") || !strings.Contains(text, "is now at e000000") {
		t.Errorf("check run text:\n%s", text)
	}
}

func TestApplyFixesProtectedBranch(t *testing.T) {
	st := newFixStack(t, false)
	st.fake.ProtectBranch("o", "r", "feature")
	run := st.review(t)
	st.press(t, "press-protected", run, ghv.ActionApplyFixes, true)
	st.wait(t, "press-protected")
	if st.fake.Branch("o", "r", "feature") != fixHead {
		t.Fatal("the protected branch moved")
	}
	text := st.fake.CheckRuns("o", "r")[0].Text
	if !strings.Contains(text, "the branch is protected") || !strings.Contains(text, "Changes must be made through a pull request") || !strings.Contains(text, "```diff") {
		t.Errorf("check run text:\n%s", text)
	}
}

// TestApplyFixesWithoutContentsWrite: the App loses Contents: write after
// the review offered the button; the press is refused by GitHub's 403.
func TestApplyFixesWithoutContentsWrite(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	st.fake.SetPermissions(fixInst, fakegithub.DefaultPermissions)
	st.press(t, "press-read", run, ghv.ActionApplyFixes, true)
	st.wait(t, "press-read")
	text := st.fake.CheckRuns("o", "r")[0].Text
	if st.fake.Branch("o", "r", "feature") != fixHead || !strings.Contains(text, "no permission to push") || !strings.Contains(text, "Contents: write") {
		t.Errorf("check run text:\n%s", text)
	}
}

// A fork's pull request is absent from its check runs' pull_requests; the
// external id names it, and the fixes come back as a patch git apply takes.
func TestApplyFixesForkGetsAPatch(t *testing.T) {
	st := newFixStack(t, true)
	run := st.review(t)
	st.press(t, "press-fork", run, ghv.ActionPatchFixes, false)
	st.wait(t, "press-fork")
	for _, route := range []string{fakegithub.RouteCreateBlob, fakegithub.RouteCreateTree, fakegithub.RouteCreateCommit, fakegithub.RouteUpdateRef} {
		if n := st.fake.Count(route); n != 0 {
			t.Errorf("%s called %d times for a fork", route, n)
		}
	}
	text := st.fake.CheckRuns("o", "r")[0].Text
	if !strings.Contains(text, "comes from a fork") {
		t.Fatalf("check run text:\n%s", text)
	}
	_, patch, ok := strings.Cut(text, "```diff\n")
	patch, _, _ = strings.Cut(patch, "\n```")
	if !ok || !strings.Contains(patch, "--- a/deploy/web.yaml") {
		t.Fatalf("no patch in:\n%s", text)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: the patch is not applied")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "deploy"), 0o755)
	os.WriteFile(filepath.Join(dir, "deploy/web.yaml"), []byte(webYAML), 0o644)
	os.WriteFile(filepath.Join(dir, "fix.patch"), []byte(patch+"\n"), 0o644)
	cmd := exec.Command(git, "apply", "fix.patch")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\n%s", err, out, patch)
	}
	fixed, _ := os.ReadFile(filepath.Join(dir, "deploy/web.yaml"))
	if hasRule(findingsOf(t, "deploy/web.yaml", string(fixed)), "probes-identical") {
		t.Errorf("the patched file still has the finding:\n%s", fixed)
	}
}

// actionIDs lists the identifiers of a check run's requested actions.
func actionIDs(run fakegithub.CheckRun) []string {
	var ids []string
	for _, a := range run.Actions {
		ids = append(ids, a.Identifier)
	}
	return ids
}

// TestCheckRunOffersApplyFixes: a review with fixable new findings offers
// both buttons on its completed check run when the App may write contents,
// and none when it may not.
func TestCheckRunOffersApplyFixes(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	if got, want := actionIDs(run), []string{ghv.ActionApplyFixes, ghv.ActionApplyAllFixes}; !slices.Equal(got, want) {
		t.Errorf("actions offered: %v, want %v", got, want)
	}

	st = newFixStack(t, false)
	st.fake.SetPermissions(fixInst, map[string]string{"contents": "read", "checks": "write", "pull_requests": "write", "metadata": "read"})
	if run := st.review(t); len(run.Actions) != 0 {
		t.Errorf("actions offered without contents: write: %v", actionIDs(run))
	}
}

// TestApplyFixesOnlyWhatThePullRequestIntroduced: fixes of findings the
// base already has are not committed; the new container's are.
func TestApplyFixesOnlyWhatThePullRequestIntroduced(t *testing.T) {
	st := newFixStack(t, false)
	f := st.fake
	f.AddCommit("o", "r", fixBase, map[string]string{"README.md": "hello\n", "deploy/web.yaml": webYAML})
	sidecar := strings.Replace(webYAML, "      containers:\n", "      containers:\n        - name: sidecar\n          image: ghcr.io/acme/sidecar:1.0.0\n          resources:\n            requests: {cpu: 10m, memory: 32Mi}\n            limits: {memory: 32Mi}\n", 1)
	f.AddCommit("o", "r", fixHead, map[string]string{"README.md": "hello\n", "deploy/web.yaml": sidecar})
	run := st.review(t)
	st.press(t, "press-new", run, ghv.ActionApplyAllFixes, true)
	st.wait(t, "press-new")
	_, files, _ := f.Commit("o", "r", f.Branch("o", "r", "feature"))
	var fixed struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name            string         `json:"name"`
						SecurityContext map[string]any `json:"securityContext"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(files["deploy/web.yaml"]), &fixed); err != nil {
		t.Fatalf("%v\n%s", err, files["deploy/web.yaml"])
	}
	cs := fixed.Spec.Template.Spec.Containers
	if len(cs) != 2 || cs[0].Name != "sidecar" || cs[0].SecurityContext == nil {
		t.Errorf("the new container's fixes were not committed:\n%s\n%s", files["deploy/web.yaml"], st.logs.String())
	}
	if len(cs) == 2 && cs[1].SecurityContext != nil {
		t.Errorf("a fix of a finding the base already has was committed: %v", cs[1].SecurityContext)
	}
}

// TestNextReviewSeesTheFixCommit: after Apply fixes commits, the push
// event of that commit is reviewed like any push. The container's thread,
// which held the fixed probes-identical finding beside its other warnings,
// is edited in place to drop it (not resolved, not posted again: its other
// findings stay), and the new head's check run no longer has it.
func TestNextReviewSeesTheFixCommit(t *testing.T) {
	st := newFixStack(t, false)
	run := st.review(t)
	threads := func() []fakegithub.Comment {
		var out []fakegithub.Comment
		for _, c := range st.fake.Comments("o", "r") {
			if c.InReplyTo == 0 {
				out = append(out, c)
			}
		}
		return out
	}
	before := threads()
	if len(before) != 1 || !strings.Contains(before[0].Body, "probes-identical") {
		t.Fatalf("before the fix: want one container thread holding probes-identical, got %+v", before)
	}
	st.press(t, "press-next", run, ghv.ActionApplyFixes, true)
	st.wait(t, "press-next")
	fixed := st.fake.Branch("o", "r", "feature")
	if fixed == fixHead {
		t.Fatalf("nothing committed; logs:\n%s", st.logs.String())
	}
	st.fake.SetPR("o", "r", 1, fixBase, fixed)
	pr := map[string]any{"number": 1, "head": map[string]any{"ref": "feature", "sha": fixed, "repo": map[string]any{"full_name": "o/r"}}, "base": map[string]any{"ref": "main", "sha": fixBase, "repo": map[string]any{"full_name": "o/r"}}}
	if code := st.deliver(t, "pull_request", "sync-after-fix", map[string]any{"action": "synchronize", "number": 1, "pull_request": pr, "repository": fixRepo, "installation": map[string]any{"id": fixInst}}); code != http.StatusAccepted {
		t.Fatalf("synchronize: %d", code)
	}
	st.wait(t, "sync-after-fix")
	after := threads()
	if len(after) != 1 || after[0].ID != before[0].ID || after[0].Resolved || after[0].Edits == 0 || strings.Contains(after[0].Body, "probes-identical") {
		t.Errorf("after the fix commit's review: want the same thread, edited, without probes-identical; got %+v", after)
	}
	var onFixed *fakegithub.CheckRun
	for _, r := range st.fake.CheckRuns("o", "r") {
		if r.HeadSHA == fixed {
			onFixed = &r
		}
	}
	if onFixed == nil || onFixed.Status != "completed" || strings.Contains(onFixed.Summary, "probes-identical") {
		t.Errorf("check run of the fix commit: %+v", onFixed)
	}
}
