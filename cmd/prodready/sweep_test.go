package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// TestRestartedReplicaEndsTheRunOfAJobThatAgedOut: a single `serve` with
// the embedded NATS server is killed with SIGKILL mid-review, and its job
// ages out of the stream before anyone runs it again (here the stream's
// max age is seconds; in production a replica gone for longer than 72h,
// or a stream purged by hand). The check run the dead process started
// would stay in progress for good; the restarted process's start-up sweep
// completes it as timed out with a note to re-run, and counts it.
func TestRestartedReplicaEndsTheRunOfAJobThatAgedOut(t *testing.T) {
	t.Parallel() // it waits on timers and other processes, not on a CPU
	if testing.Short() {
		t.Skip("starts two serve processes one after the other; skipped with -short")
	}
	const secret = "sweep-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	config := testconfig.OnlyRule("probe-named-port-undeclared")
	fake.AddCommit("acme", "web", replicaBase, map[string]string{"deploy/app.yaml": replicaManifest("8080"), ".prodready.yaml": config})
	fake.AddCommit("acme", "web", headSHA(0), map[string]string{"deploy/app.yaml": replicaManifest("metrics"), ".prodready.yaml": config})
	fake.SetPR("acme", "web", 1, replicaBase, headSHA(0))

	// The job outlives its replica by less than its max age only if the
	// replica comes back within seconds; the sweep's run records outlive
	// max age + stale after + two sweeps (16s here).
	args := []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(t.TempDir(), "nats"),
		"--queue-max-age", "4s", "--queue-duplicate-window", "2s", "--queue-ack-wait", "60s",
		"--queue-review-timeout", "1s", "--queue-stale-after", "2s", "--queue-sweep-every", "5s"}

	reached, release := fake.Hold(http.MethodGet, "/repos/acme/web/pulls/1/files")
	defer release()
	first := startReplica(t, "first", args)
	if code := first.deliver(t, secret, "aged-1", prBody(1, "opened", headSHA(0))); code != http.StatusAccepted {
		t.Fatalf("delivery: status %d, want 202", code)
	}
	select {
	case <-reached:
	case <-time.After(60 * time.Second):
		t.Fatal("the review never listed its files")
	}
	runs := fake.CheckRuns("acme", "web")
	if len(runs) != 1 || runs[0].Status != "in_progress" {
		t.Fatalf("check runs %+v, want one in progress", runs)
	}
	first.cmd.Process.Signal(syscall.SIGKILL)
	<-first.done
	release()
	time.Sleep(5 * time.Second) // past the job's max age: JetStream drops it

	second := startReplica(t, "second", args)
	waitFor(t, "the orphaned check run completed", func() bool {
		runs := fake.CheckRuns("acme", "web")
		return len(runs) == 1 && runs[0].Status == "completed"
	})
	run := fake.CheckRuns("acme", "web")[0]
	if run.Conclusion != "timed_out" || !strings.Contains(run.Summary, "Re-run this check") {
		t.Errorf("check run %s/%s %q, want timed_out with a note to re-run", run.Status, run.Conclusion, run.Summary)
	}
	if n := len(fake.Reviews("acme", "web")); n != 0 {
		t.Errorf("%d reviews posted for a job no one ran again", n)
	}
	// The sweep counts the run once GitHub has answered its update, so the
	// count may follow the fake's record of the update by a moment.
	want := `prodready_stale_runs_completed_total{host="github"} 1`
	waitFor(t, "the stale run counted in /metrics", func() bool {
		resp, err := http.Get("http://" + second.addr + "/metrics")
		if err != nil {
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return strings.Contains(string(body), want)
	})
	second.cmd.Process.Signal(syscall.SIGTERM)
	<-second.done
}
