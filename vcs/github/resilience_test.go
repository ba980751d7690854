package github_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/internal/testconfig"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/fakegithub"
	ghv "github.com/prodready/prodready/vcs/github"
)

const (
	synthBase = "0000000000000000000000000000000000000000"
	synthHead = "1111111111111111111111111111111111111111"
)

func TestRetriesOn5xxAndSecondaryLimit(t *testing.T) {
	st := newStack(t, 4, true)
	setupRepo(st.fake, "acme", "deploys", 7, synthBase, synthHead)
	st.fake.Inject(fakegithub.Fault{Method: "POST", PathPrefix: "/repos/acme/deploys/check-runs", Status: http.StatusBadGateway, Times: 2})
	st.fake.Inject(fakegithub.Fault{Method: "GET", PathPrefix: "/repos/acme/deploys/pulls/7/files", Secondary: true, Times: 1})
	st.fake.Inject(fakegithub.Fault{Method: "POST", PathPrefix: "/repos/acme/deploys/pulls/7/reviews", Status: http.StatusServiceUnavailable, Times: 1})
	if code := st.deliver(t, "pull_request", "r-1", syntheticOpened(t)); code != http.StatusAccepted {
		t.Fatalf("status %d", code)
	}
	<-st.done
	runs := st.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Conclusion != "failure" || runs[0].Title != "2 new errors" {
		t.Fatalf("check runs = %+v", runs)
	}
	if n := len(st.fake.Reviews("acme", "deploys")); n != 1 {
		t.Errorf("reviews = %d, want 1", n)
	}
	var statuses []string
	for _, c := range st.fake.Calls() {
		if c.Status >= 500 || c.Status == http.StatusForbidden {
			statuses = append(statuses, c.String())
		}
	}
	want := []string{
		"POST /repos/acme/deploys/check-runs 502",
		"POST /repos/acme/deploys/check-runs 502",
		"GET /repos/acme/deploys/pulls/7/files 403",
		"POST /repos/acme/deploys/pulls/7/reviews 503",
	}
	if strings.Join(statuses, "\n") != strings.Join(want, "\n") {
		t.Errorf("failed calls:\n%s\nwant\n%s", strings.Join(statuses, "\n"), strings.Join(want, "\n"))
	}
	resp, err := http.Get(st.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var mb strings.Builder
	io.Copy(&mb, resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`prodready_api_calls_total{endpoint="POST /repos/{owner}/{repo}/check-runs",host="github",status="502"} 2`,
		`prodready_api_calls_total{endpoint="POST /repos/{owner}/{repo}/check-runs",host="github",status="201"} 1`,
		`prodready_api_calls_total{endpoint="GET /repos/{owner}/{repo}/pulls/{n}/files",host="github",status="403"} 1`,
		`prodready_webhook_deliveries_total{event="pull_request",host="github",outcome="queued"} 1`,
	} {
		if !strings.Contains(mb.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	// Retry-After: 1 for the secondary limit. A create answered 502 or
	// 503 is not repeated by the transport: the host looks for it and,
	// not finding it, sends it again at once.
	if fmt.Sprint(st.sleeps) != "[1s]" {
		t.Errorf("waits = %v", st.sleeps)
	}
}

func TestErrorCompletesCheckRun(t *testing.T) {
	st := newStack(t, 4, true)
	setupRepo(st.fake, "acme", "deploys", 7, synthBase, synthHead)
	st.fake.Inject(fakegithub.Fault{Method: "GET", PathPrefix: "/repos/acme/deploys/git/trees/", Status: http.StatusInternalServerError, Times: 100})
	st.deliver(t, "pull_request", "e-1", syntheticOpened(t))
	<-st.done
	runs := st.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" || !strings.Contains(runs[0].Summary, "loading manifests") {
		t.Fatalf("check run = %+v, want it completed with the error", runs)
	}
	st.mu.Lock()
	waited := time.Duration(0)
	for _, d := range st.sleeps {
		waited += d
	}
	st.mu.Unlock()
	if waited > ghv.DefaultRetryBudget {
		t.Errorf("waited %s, over the budget", waited)
	}
}

func TestAnnotationsInBatchesOf50(t *testing.T) {
	st := newStack(t, 4, true)
	var baseDocs, headDocs []string
	for i := 0; i < 120; i++ {
		d := strings.Replace(deployment("http", "nope", "8080"), "name: web\nspec", fmt.Sprintf("name: web%d\nspec", i), 1)
		baseDocs = append(baseDocs, d)
		headDocs = append(headDocs, d)
	}
	headDocs[0] = strings.Replace(headDocs[0], "image: nginx:1.27", "image: nginx:1.28", 1)
	st.fake.AddCommit("acme", "deploys", synthBase, map[string]string{"many.yaml": strings.Join(baseDocs, "---\n"), ".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared") + "review: {report: touched}\n"})
	st.fake.AddCommit("acme", "deploys", synthHead, map[string]string{"many.yaml": strings.Join(headDocs, "---\n")})
	st.fake.SetPR("acme", "deploys", 7, synthBase, synthHead)
	st.deliver(t, "pull_request", "a-1", syntheticOpened(t))
	<-st.done
	runs := st.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 {
		t.Fatalf("runs = %d", len(runs))
	}
	// 120 findings, none on an added line: the create, 50 + 50 + 20
	// annotations, then the update that completes the run.
	if got := len(runs[0].Annotations); got != 120 || runs[0].Requests != 5 || runs[0].Conclusion != "failure" {
		t.Errorf("annotations %d in %d requests, conclusion %q", got, runs[0].Requests, runs[0].Conclusion)
	}
	if n := len(st.fake.Reviews("acme", "deploys")); n != 0 {
		t.Errorf("reviews = %d, want none (no finding on an added line)", n)
	}
}

func TestResolveFallsBackToReply(t *testing.T) {
	st := newStack(t, 4, true)
	setupRepo(st.fake, "acme", "deploys", 7, synthBase, synthHead)
	st.deliver(t, "pull_request", "g-1", syntheticOpened(t))
	<-st.done
	// Second push fixes everything; GraphQL is down.
	st.fake.AddCommit("acme", "deploys", head2, map[string]string{"deploy/app.yaml": deployment("http", "http", "http")})
	st.fake.SetPR("acme", "deploys", 7, synthBase, head2)
	st.fake.Inject(fakegithub.Fault{Method: "POST", PathPrefix: "/graphql", Status: http.StatusBadGateway, Times: 100})
	st.deliver(t, "pull_request", "g-2", withHead(t, syntheticOpened(t), "synchronize", head2))
	<-st.done
	var replies []fakegithub.Comment
	for _, c := range st.fake.Comments("acme", "deploys") {
		if c.InReplyTo != 0 {
			replies = append(replies, c)
		}
	}
	if len(replies) != 2 || !strings.Contains(replies[0].Body, "Fixed in 2222222") {
		t.Fatalf("replies = %+v, want one per fixed comment", replies)
	}
	runs := st.fake.CheckRuns("acme", "deploys")
	if runs[1].Conclusion != "success" {
		t.Errorf("second run conclusion %q, want success", runs[1].Conclusion)
	}
	// A third push: the fixed comments already have their reply.
	st.deliver(t, "pull_request", "g-3", withHead(t, syntheticOpened(t), "synchronize", head2))
	<-st.done
	n := 0
	for _, c := range st.fake.Comments("acme", "deploys") {
		if c.InReplyTo != 0 {
			n++
		}
	}
	if n != 2 {
		t.Errorf("replies after the third push = %d, want still 2", n)
	}
}

func TestShutdownEndsUnfinishedReview(t *testing.T) {
	st := newStack(t, 4, true)
	setupRepo(st.fake, "acme", "deploys", 7, synthBase, synthHead)
	reached, release := st.fake.Hold("GET", "/repos/acme/deploys/git/trees/")
	defer release()
	if code := st.deliver(t, "pull_request", "s-1", syntheticOpened(t)); code != http.StatusAccepted {
		t.Fatalf("status %d", code)
	}
	<-reached // the review is running: its check run is in progress
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the grace period is over at once
	if err := st.server.Shutdown(ctx); err == nil {
		t.Error("Shutdown returned nil, want the grace period's error")
	}
	<-st.done
	runs := st.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" || !strings.Contains(runs[0].Summary, "Re-run this check") {
		t.Fatalf("check run = %+v, want it completed with a note to re-run", runs)
	}
	if code := st.deliver(t, "pull_request", "s-2", syntheticOpened(t)); code != http.StatusServiceUnavailable {
		t.Errorf("delivery after shutdown: %d, want 503", code)
	}
}

func TestReviewRefusedByGitHubGoesToBody(t *testing.T) {
	st := newStack(t, 4, true)
	setupRepo(st.fake, "acme", "deploys", 7, synthBase, synthHead)
	h, err := st.app.Host(42)
	if err != nil {
		t.Fatal(err)
	}
	pr := bot.PullRequest{Repo: "acme/deploys", Number: 7, BaseSHA: synthBase, HeadSHA: synthHead}
	rh, err := h.StartReview(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	// Line 2 is outside the diff: GitHub refuses the whole review.
	bad := bot.Comment{Path: "deploy/app.yaml", StartLine: 2, Line: 2, Body: "outside " + bot.FingerprintMarker("abc"), Fingerprint: "abc", Fingerprints: []string{"abc"}}
	r := bot.Review{Comments: []bot.Comment{bad}, Conclusion: "failure", Title: "1 error", Summary: "s", Fingerprints: bot.NewFingerprintSet("abc")}
	if err := h.Publish(context.Background(), pr, rh, r); err != nil {
		t.Fatal(err)
	}
	revs := st.fake.Reviews("acme", "deploys")
	if len(revs) != 1 || len(revs[0].Comments) != 0 || !strings.Contains(revs[0].Body, "outside") {
		t.Fatalf("reviews = %+v, want one without comments, the comment in its body", revs)
	}
	var refused int
	for _, c := range st.fake.Calls() {
		if c.Status == http.StatusUnprocessableEntity {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("422 answers = %d, want 1", refused)
	}
}

func TestNoManifestChangedIsQuickNeutral(t *testing.T) {
	st := newStack(t, 4, true)
	st.fake.AddCommit("acme", "deploys", synthBase, map[string]string{"README.md": "a\n", "deploy/app.yaml": deployment("x", "y", "z")})
	st.fake.AddCommit("acme", "deploys", synthHead, map[string]string{"README.md": "b\n", "deploy/app.yaml": deployment("x", "y", "z")})
	st.fake.SetPR("acme", "deploys", 7, synthBase, synthHead)
	st.deliver(t, "pull_request", "n-1", syntheticOpened(t))
	<-st.done
	runs := st.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Conclusion != "neutral" || runs[0].Title != "No Kubernetes manifests changed" {
		t.Fatalf("runs = %+v", runs)
	}
	var got []string
	for _, c := range st.fake.Calls() {
		got = append(got, c.Method+" "+ghv.Endpoint("", c.Path)[1:])
	}
	want := []string{
		"POST /app/installations/{n}/access_tokens",
		"GET /repos/{owner}/{repo}/commits/{sha}/check-runs",
		"POST /repos/{owner}/{repo}/check-runs",
		"GET /repos/{owner}/{repo}/contents/{path}",
		"GET /repos/{owner}/{repo}/pulls/{n}/files",
		"GET /repos/{owner}/{repo}/pulls/{n}/comments",
		"PATCH /repos/{owner}/{repo}/check-runs/{n}",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestGraphQLURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.github.com/":         "https://api.github.com/graphql",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com/api/graphql",
		"http://127.0.0.1:1234/":          "http://127.0.0.1:1234/graphql",
	} {
		if got := ghv.GraphQLURL(in); got != want {
			t.Errorf("GraphQLURL(%s) = %s, want %s", in, got, want)
		}
	}
}
