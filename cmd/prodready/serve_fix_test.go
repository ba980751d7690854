package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
	ghv "github.com/prodready/prodready/vcs/github"
)

// fixManifest has one finding with an exact fix: its readiness and
// liveness probes are the same (probes-identical).
const fixManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
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
`

// deliverEvent sends a signed delivery of event to r.
func (r *replica) deliverEvent(t *testing.T, secret, event, delivery string, payload any) int {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/webhooks/github", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", ghv.Sign([]byte(secret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("delivering %s: %v", delivery, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// fixPullRequest sets the fake GitHub up with acme/web#1, whose head
// (headSHA(0), branch feature) adds fixManifest under the base's config of
// probes-identical alone, and an installation that may write; the given
// logins get their collaborator permission. It starts serve against it,
// has the pull request reviewed, and returns the replica, the head and the
// review's completed check run.
func fixPullRequest(t *testing.T, fake *fakegithub.Server, keyFile, secretFile, secret string, collaborators map[string]string) (*replica, string, fakegithub.CheckRun) {
	t.Helper()
	config := testconfig.OnlyRule("probes-identical")
	fake.AddCommit("acme", "web", replicaBase, map[string]string{"README.md": "hi\n", ".prodready.yaml": config})
	fake.SetBranch("acme", "web", "main", replicaBase)
	fake.SetBranch("acme", "web", "feature", replicaBase)
	head := headSHA(0)
	fake.Push("acme", "web", "feature", head, map[string]string{"README.md": "hi\n", ".prodready.yaml": config, "deploy/web.yaml": fixManifest})
	fake.SetPR("acme", "web", 1, replicaBase, head)
	fake.SetPRBranches("acme", "web", 1, fakegithub.PRBranches{BaseRef: "main", HeadRef: "feature", HeadRepo: "acme/web"})
	fake.SetPermissions(1, map[string]string{"contents": "write", "checks": "write", "pull_requests": "write", "metadata": "read"})
	for login, permission := range collaborators {
		fake.SetCollaborator("acme", "web", login, permission)
	}
	r := startReplica(t, "press", []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(t.TempDir(), "nats"), "--queue-backoff", "100ms"})
	if code := r.deliver(t, secret, "review-1", prBody(1, "opened", head)); code != http.StatusAccepted {
		t.Fatalf("pull_request delivery: %d", code)
	}
	waitFor(t, "the review's check run completed", func() bool {
		runs := fake.CheckRuns("acme", "web")
		return len(runs) == 1 && runs[0].Status == "completed"
	})
	return r, head, fake.CheckRuns("acme", "web")[0]
}

// pressPayload is the check_run requested_action delivery of sender
// pressing identifier on check run runID (named name) of acme/web#1 at
// head, as GitHub sends it for a pull request of the same repository.
func pressPayload(runID int64, name, head, identifier, sender string) map[string]any {
	return map[string]any{
		"action":           "requested_action",
		"check_run":        map[string]any{"id": runID, "name": name, "head_sha": head, "external_id": "pr:1", "app": map[string]any{"id": 1}, "pull_requests": []any{map[string]any{"number": 1, "head": map[string]any{"ref": "feature", "sha": head, "repo": map[string]any{"id": 77, "name": "web"}}, "base": map[string]any{"ref": "main", "sha": replicaBase, "repo": map[string]any{"id": 77, "name": "web"}}}}},
		"requested_action": map[string]any{"identifier": identifier},
		"repository":       map[string]any{"id": 77, "name": "web", "full_name": "acme/web", "owner": map[string]any{"login": "acme"}},
		"installation":     map[string]any{"id": 1},
		"sender":           map[string]any{"login": sender, "type": "User"},
	}
}

// TestServeApplyFixesPressCommitsOnce runs `prodready serve` as a process,
// with the embedded queue deploy/'s single overlay uses, against the fake
// GitHub: a pull request is reviewed, then the author presses Apply fixes on
// its check run. The press goes through the queue like every job, and the
// replica that takes it must find the installation to act as: the fix is
// committed to the head branch exactly once, and a second delivery of the
// same press commits nothing more.
func TestServeApplyFixesPressCommitsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	const secret = "press-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	// alice is the author, who presses.
	r, head, run := fixPullRequest(t, fake, keyFile, secretFile, secret, map[string]string{"alice": "write"})
	press := pressPayload(run.ID, run.Name, run.HeadSHA, ghv.ActionApplyFixes, "alice")
	if code := r.deliverEvent(t, secret, "check_run", "press-1", press); code != http.StatusAccepted {
		t.Fatalf("check_run delivery: %d", code)
	}
	waitFor(t, "the fix committed to the head branch", func() bool { return fake.Branch("acme", "web", "feature") != head })
	sha := fake.Branch("acme", "web", "feature")
	_, files, ok := fake.Commit("acme", "web", sha)
	// probes-identical's fix makes the liveness probe more patient than
	// the readiness probe.
	if got := files["deploy/web.yaml"]; !ok || got == fixManifest || !strings.Contains(got, "failureThreshold:") {
		t.Errorf("the fix commit's deploy/web.yaml:\n%s", got)
	}
	if strings.Contains(r.logs(), "names no GitHub App installation") {
		t.Errorf("the fix job lost its installation:\n%s", lastLines(r.logs(), 20))
	}
	// The same press delivered again (GitHub redelivers) is taken as the
	// duplicate it is, and commits nothing more.
	if code := r.deliverEvent(t, secret, "check_run", "press-1", press); code != http.StatusAccepted && code != http.StatusOK {
		t.Fatalf("check_run redelivery: %d", code)
	}
	commits := fake.Count(fakegithub.RouteCreateCommit)
	if commits != 1 {
		t.Errorf("%d commits created, want 1", commits)
	}
}
