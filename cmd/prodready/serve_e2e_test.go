package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// TestServeReviewThenFixingPushResolvesThread runs `prodready serve` as a
// process, on its embedded queue, against the fake GitHub, through a pull
// request's life: its opening is reviewed with one inline comment on the
// one finding and a failing check run; a push that fixes the finding gets
// a check run of its own that passes, the thread is resolved (the bot's
// way of saying fixed where GitHub lets it) and nothing is posted again;
// and GitHub redelivering the first delivery is answered as the duplicate
// it is and creates nothing.
func TestServeReviewThenFixingPushResolvesThread(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	const secret = "e2e-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	config := testconfig.OnlyRule("probe-named-port-undeclared")
	head1, head2 := headSHA(0), headSHA(1)
	fake.AddCommit("acme", "web", replicaBase, map[string]string{"README.md": "hi\n", ".prodready.yaml": config})
	// head1 adds the Deployment with its readiness probe on an undeclared
	// port (line 21); head2 points it at the declared one.
	fake.AddCommit("acme", "web", head1, map[string]string{"README.md": "hi\n", ".prodready.yaml": config, "deploy/app.yaml": replicaManifest("metrics")})
	fake.AddCommit("acme", "web", head2, map[string]string{"README.md": "hi\n", ".prodready.yaml": config, "deploy/app.yaml": replicaManifest("8080")})
	fake.SetPR("acme", "web", 1, replicaBase, head1)

	r := startReplica(t, "e2e", []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(t.TempDir(), "nats"), "--queue-backoff", "100ms"})

	runsOf := func(head string) []fakegithub.CheckRun {
		var out []fakegithub.CheckRun
		for _, run := range fake.CheckRuns("acme", "web") {
			if run.HeadSHA == head {
				out = append(out, run)
			}
		}
		return out
	}
	completed := func(head string) func() bool {
		return func() bool {
			runs := runsOf(head)
			return len(runs) == 1 && runs[0].Status == "completed"
		}
	}

	// 1. Opened: one review, one inline comment, a failing check run.
	opened := prBody(1, "opened", head1)
	if code := r.deliver(t, secret, "open-1", opened); code != http.StatusAccepted {
		t.Fatalf("pull_request opened: %d", code)
	}
	waitFor(t, "the first head's check run completed", completed(head1))
	if c := runsOf(head1)[0].Conclusion; c != "failure" {
		t.Errorf("the first head's check run concluded %q, want failure (an error finding)", c)
	}
	reviews := fake.Reviews("acme", "web")
	if len(reviews) != 1 || reviews[0].CommitID != head1 || len(reviews[0].Comments) != 1 {
		t.Fatalf("reviews after opening: %+v; want one on %s with one comment", reviews, head1)
	}
	comment := reviews[0].Comments[0]
	if comment.Path != "deploy/app.yaml" || comment.Line != 21 || !strings.Contains(comment.Body, "probe-named-port-undeclared") || !strings.Contains(comment.Body, "<!-- prodready:thread=") {
		t.Errorf("the inline comment: %s line %d:\n%s", comment.Path, comment.Line, comment.Body)
	}

	// 2. A push that fixes it: the new head's run passes and the thread
	// is resolved; nothing new is posted.
	fake.SetPR("acme", "web", 1, replicaBase, head2)
	if code := r.deliver(t, secret, "push-2", prBody(1, "synchronize", head2)); code != http.StatusAccepted {
		t.Fatalf("pull_request synchronize: %d", code)
	}
	waitFor(t, "the second head's check run completed", completed(head2))
	if c := runsOf(head2)[0].Conclusion; c != "success" {
		t.Errorf("the fixing head's check run concluded %q, want success", c)
	}
	waitFor(t, "the thread resolved", func() bool {
		for _, c := range fake.Comments("acme", "web") {
			if c.ID == comment.ID {
				return c.Resolved
			}
		}
		return false
	})
	if n := len(fake.Reviews("acme", "web")); n != 1 {
		t.Errorf("%d reviews after the fixing push, want the first only", n)
	}
	for _, c := range fake.Comments("acme", "web") {
		if c.ID != comment.ID {
			t.Errorf("a comment besides the thread (resolving worked, so no reply is due): %s line %d: %s", c.Path, c.Line, c.Body)
		}
	}
	if !strings.Contains(r.logs(), `"fixed":1`) {
		t.Errorf("the log does not count the fixed thread:\n%s", lastLines(r.logs(), 20))
	}

	// 3. GitHub redelivers the first delivery: the duplicate is answered
	// at once and creates nothing.
	runs, revs, comments := len(fake.CheckRuns("acme", "web")), len(fake.Reviews("acme", "web")), len(fake.Comments("acme", "web"))
	if code := r.deliver(t, secret, "open-1", opened); code != http.StatusOK {
		t.Errorf("the redelivery answered %d, want 200 (duplicate)", code)
	}
	time.Sleep(2 * time.Second) // what a wrongly queued job would take to post
	if n := len(fake.CheckRuns("acme", "web")); n != runs {
		t.Errorf("%d check runs after the redelivery, want %d", n, runs)
	}
	if n := len(fake.Reviews("acme", "web")); n != revs {
		t.Errorf("%d reviews after the redelivery, want %d", n, revs)
	}
	if n := len(fake.Comments("acme", "web")); n != comments {
		t.Errorf("%d comments after the redelivery, want %d", n, comments)
	}
	for _, c := range fake.Comments("acme", "web") {
		if c.ID == comment.ID && !c.Resolved {
			t.Error("the redelivery of the first head reopened the fixed thread")
		}
	}
}
