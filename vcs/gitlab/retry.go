package gitlab

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/retry"
)

// newRetryTransport is GitLab's configuration of the shared retry
// transport (internal/retry): 429 and 5xx answers (and requests that
// failed before an answer) are retried with exponential backoff and
// jitter, honouring Retry-After and RateLimit-Reset, until budget is spent.
// A POST or PATCH is retried after a 5xx or a network error only when
// repeating it is harmless (setting a commit status: GitLab answers a
// repeated state with 400 "Cannot transition status", which the Host
// accepts), so a retry never posts a discussion twice; after a 429 the
// server did nothing and every request is retried.
func newRetryTransport(base http.RoundTripper, budget, first, maxWait time.Duration, clk *clock, metrics *bot.Metrics, maxAnswer int64) *retry.Transport {
	return &retry.Transport{
		Base: base, Host: "gitlab", Metrics: metrics,
		Endpoint:  func(r *http.Request) string { return endpoint(r.Method, r.URL) },
		Budget:    budget,
		FirstWait: first, MaxWait: maxWait, Jitter: true,
		Repeatable: func(r *http.Request) bool {
			return (r.Method != http.MethodPost && r.Method != http.MethodPatch) || strings.Contains(r.URL.Path, "/statuses/")
		},
		MaxAnswerBytes: maxAnswer,
		Now:            func() time.Time { return clk.now() },
		Sleep:          func(ctx context.Context, d time.Duration) error { return clk.sleep(ctx, d) },
	}
}

// clock is the time source of retries and waits; tests replace it with
// one that advances without sleeping.
type clock struct {
	now func() time.Time
	// sleep waits for d or until ctx ends.
	sleep func(ctx context.Context, d time.Duration) error
}

func realClock() *clock { return &clock{now: time.Now, sleep: retry.Sleep} }

// variable names the path segment that follows each of these keys.
var variable = map[string]string{
	"projects": "{id}", "merge_requests": "{iid}", "discussions": "{discussion}", "notes": "{note}",
	"files": "{path}", "blobs": "{sha}", "statuses": "{sha}",
}

// endpoint names an API call for metrics without its variable parts:
// "GET /projects/{id}/merge_requests/{iid}/discussions" (below /api/v4,
// which a self-managed instance may serve under a path prefix).
func endpoint(method string, u *url.URL) string {
	path := u.EscapedPath()
	if i := strings.Index(path, "/api/v4/"); i >= 0 {
		path = path[i+len("/api/v4"):]
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i := len(parts) - 1; i > 0; i-- {
		if v, ok := variable[parts[i-1]]; ok {
			parts[i] = v
		}
	}
	return method + " /" + strings.Join(parts, "/")
}
