package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// metricSum adds up the series of r's /metrics whose line starts with
// prefix (a metric's name and, optionally, the start of its labels).
func (r *replica) metricSum(t *testing.T, prefix string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + r.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sum := 0.0
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		if v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
			sum += v
		}
	}
	return sum
}

// prBodyOn is prBody's pull_request event on base.
func prBodyOn(number int, action, head, base string) []byte {
	var e map[string]any
	json.Unmarshal(prBody(number, action, head), &e)
	e["pull_request"].(map[string]any)["base"].(map[string]any)["sha"] = base
	b, _ := json.Marshal(e)
	return b
}

// rerequestBody is a check_run "rerequested" delivery: someone pressed
// Re-run on the bot's check run of head.
func rerequestBody(number int, head string) map[string]any {
	return map[string]any{
		"action": "rerequested",
		"check_run": map[string]any{"id": 1, "head_sha": head, "external_id": fmt.Sprintf("pr:%d", number), "pull_requests": []any{map[string]any{
			"number": number,
			"head":   map[string]any{"sha": head, "ref": "feature", "repo": map[string]any{"full_name": "acme/web"}},
			"base":   map[string]any{"sha": replicaBase, "ref": "main", "repo": map[string]any{"full_name": "acme/web"}},
		}}},
		"repository":   map[string]any{"id": 77, "name": "web", "full_name": "acme/web", "owner": map[string]any{"login": "acme"}},
		"installation": map[string]any{"id": 1},
	}
}

// TestSameHeadDeliveriesMakeOneReview is the amplification attack through
// `prodready serve` as a process: 200 deliveries for one head (reopens,
// synchronize events naming the same head, redeliveries under new ids, 8
// at a time) make one review, one check run and the API calls of that one
// review; a Re-run pressed 20 times while the re-run is underway makes
// one more check run; a push of a new head is reviewed; and the same head
// on a base whose config differs is reviewed again.
func TestSameHeadDeliveriesMakeOneReview(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process and sends 250 deliveries; skipped with -short")
	}
	const secret = "amplify-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	config := testconfig.OnlyRule("probe-named-port-undeclared")
	fake.AddCommit("acme", "web", replicaBase, map[string]string{"deploy/app.yaml": replicaManifest("8080"), ".prodready.yaml": config})
	fake.AddCommit("acme", "web", headSHA(0), map[string]string{"deploy/app.yaml": replicaManifest("metrics"), ".prodready.yaml": config})
	fake.SetPR("acme", "web", 1, replicaBase, headSHA(0))
	args := []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(t.TempDir(), "nats"), "--workers", "4"}
	r := startReplica(t, "one", args)
	runsOn := func(head string) []fakegithub.CheckRun {
		var out []fakegithub.CheckRun
		for _, run := range fake.CheckRuns("acme", "web") {
			if run.HeadSHA == head {
				out = append(out, run)
			}
		}
		return out
	}
	jobsEnded := func() float64 {
		return r.metricSum(t, `prodready_jobs_total{result="done"}`) + r.metricSum(t, `prodready_jobs_total{result="coalesced"}`) + r.metricSum(t, `prodready_jobs_total{result="superseded"}`)
	}

	// 1. 200 deliveries of one head.
	fake.ResetCalls()
	actions := []string{"reopened", "synchronize", "opened", "ready_for_review"}
	var queued atomic.Int32
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range 200 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			switch code := r.deliver(t, secret, fmt.Sprintf("same-%d", i), prBody(1, actions[i%len(actions)], headSHA(0))); code {
			case http.StatusAccepted:
				queued.Add(1)
			case http.StatusOK:
			default:
				t.Errorf("delivery %d: status %d", i, code)
			}
		}()
	}
	wg.Wait()
	waitFor(t, "every queued job ended and the head's check run completed", func() bool {
		runs := runsOn(headSHA(0))
		return jobsEnded() == float64(queued.Load()) && len(runs) > 0 && runs[0].Status == "completed"
	})
	calls := len(fake.Calls())
	t.Logf("200 deliveries: %d queued, %d API calls:\n%s", queued.Load(), calls, fake.TallyString())
	if runs := runsOn(headSHA(0)); len(runs) != 1 {
		t.Fatalf("200 deliveries of one head made %d check runs, want 1", len(runs))
	}
	if n := len(fake.Reviews("acme", "web")); n != 1 {
		t.Errorf("%d reviews posted, want 1", n)
	}
	// One review of this pull request is 13 calls and an installation
	// token; every other delivery is absorbed without a call (the bound
	// allows a second token). Before, each was a review: 13 calls apiece.
	if calls > 15 {
		t.Errorf("200 deliveries of one head made %d API calls, want at most 15 (one review)", calls)
	}
	if got := r.metricSum(t, "prodready_deliveries_coalesced_total{"); got != 199 {
		t.Errorf("prodready_deliveries_coalesced_total sums to %v, want 199", got)
	}
	if !strings.Contains(r.logs(), `"msg":"delivery absorbed`) {
		t.Error("no delivery absorbed was logged")
	}

	// 2. Re-run pressed 20 times while the re-run is underway: one more
	// check run, one more review.
	reached, release := fake.Hold(http.MethodGet, "/repos/acme/web/pulls/1/files")
	if code := r.deliverEvent(t, secret, "check_run", "rerun-0", rerequestBody(1, headSHA(0))); code != http.StatusAccepted {
		t.Fatalf("re-run: status %d, want 202", code)
	}
	<-reached
	for i := range 19 {
		if code := r.deliverEvent(t, secret, "check_run", fmt.Sprintf("rerun-%d", i+1), rerequestBody(1, headSHA(0))); code != http.StatusOK {
			t.Errorf("re-run %d while one runs: status %d, want 200", i+1, code)
		}
	}
	release()
	waitFor(t, "the re-run's check run completed", func() bool {
		runs := runsOn(headSHA(0))
		return len(runs) == 2 && runs[0].Status == "completed" && runs[1].Status == "completed"
	})

	// 3. A push of a new head is reviewed.
	fake.AddCommit("acme", "web", headSHA(1), map[string]string{"deploy/app.yaml": replicaManifest("admin"), ".prodready.yaml": config})
	fake.SetPR("acme", "web", 1, replicaBase, headSHA(1))
	if code := r.deliver(t, secret, "push-1", prBody(1, "synchronize", headSHA(1))); code != http.StatusAccepted {
		t.Fatalf("push of a new head: status %d, want 202", code)
	}
	waitFor(t, "the new head reviewed", func() bool {
		runs := runsOn(headSHA(1))
		return len(runs) == 1 && runs[0].Status == "completed"
	})
	if first := runsOn(headSHA(1))[0]; first.Conclusion != "failure" {
		t.Fatalf("the new head's check run concluded %q, want failure (its probe names an undeclared port)", first.Conclusion)
	}

	// 4. The base moves to a commit whose config turns the rule off: the
	// same head is reviewed again, under that config.
	const base2 = "b200000000000000000000000000000000000000"
	fake.AddCommit("acme", "web", base2, map[string]string{"deploy/app.yaml": replicaManifest("8080"), ".prodready.yaml": testconfig.OnlyRule("pdb-missing")})
	fake.SetPR("acme", "web", 1, base2, headSHA(1))
	doneBefore := r.metricSum(t, `prodready_jobs_total{result="done"}`)
	if code := r.deliver(t, secret, "reopen-base2", prBodyOn(1, "reopened", headSHA(1), base2)); code != http.StatusAccepted {
		t.Fatalf("same head on a base with another config: status %d, want 202", code)
	}
	// The job ends (and its head and base are recorded as reviewed) just
	// after the check run completes: the absorbed redelivery below waits
	// for both.
	waitFor(t, "the head reviewed against the new base, and its job done", func() bool {
		runs := runsOn(headSHA(1))
		return len(runs) == 2 && runs[0].Status == "completed" && runs[1].Status == "completed" &&
			r.metricSum(t, `prodready_jobs_total{result="done"}`) > doneBefore
	})
	for _, run := range runsOn(headSHA(1)) {
		t.Logf("head %.7s: check run %d %s %q", run.HeadSHA, run.ID, run.Conclusion, run.Title)
	}
	if newest := runsOn(headSHA(1)); newest[0].Conclusion == "failure" && newest[1].Conclusion == "failure" {
		t.Error("the review on the new base still reports the rule its config turned off")
	}
	// And once reviewed there, that head and base are absorbed too.
	if code := r.deliver(t, secret, "reopen-base2-again", prBodyOn(1, "reopened", headSHA(1), base2)); code != http.StatusOK {
		t.Errorf("a reopen of the head reviewed on the new base: status %d, want 200", code)
	}

	r.cmd.Process.Signal(syscall.SIGTERM)
	<-r.done
}
