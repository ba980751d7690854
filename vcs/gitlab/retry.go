package gitlab

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prodready/prodready/bot"
)

// retryTransport retries a request that GitLab answered with 429 or a 5xx
// (or that failed before an answer), with exponential backoff and jitter,
// honouring Retry-After, until budget has passed since the first attempt.
// A POST is retried after a 5xx or a network error only when the server
// cannot have acted on it (429), so a retry never posts a discussion twice.
type retryTransport struct {
	base   http.RoundTripper
	budget time.Duration
	// first and max bound the wait between attempts.
	first, max time.Duration
	clk        *clock
	// metrics counts every attempt by endpoint and status (nil: not
	// counted).
	metrics *bot.Metrics
	// maxAnswer bounds the body read of every answer (a raw file or blob
	// that does not end fails its call instead of filling memory).
	maxAnswer int64
}

// clock is the time source of retries and waits; tests replace it with
// one that advances without sleeping.
type clock struct {
	now func() time.Time
	// sleep waits for d or until ctx ends.
	sleep func(ctx context.Context, d time.Duration) error
}

func realClock() *clock { return &clock{now: time.Now, sleep: sleepCtx} }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RoundTrip implements http.RoundTripper.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := t.clk.now()
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			r = req.Clone(req.Context())
			if req.GetBody != nil {
				b, err := req.GetBody()
				if err != nil {
					return nil, fmt.Errorf("rewinding the request body for a retry: %w", err)
				}
				r.Body = b
			}
		}
		resp, err := t.base.RoundTrip(r)
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.metrics.APICall("gitlab", endpoint(req.Method, req.URL), status)
		if !replayable || !retryable(req, resp, err) {
			return t.limited(resp), err
		}
		wait := t.backoff(attempt, resp)
		if t.clk.now().Add(wait).Sub(start) > t.budget {
			return t.limited(resp), err // out of budget: the last answer stands
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if err := t.clk.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// limited bounds resp's body to maxAnswer (bot.MaxAnswerBytes when 0).
func (t *retryTransport) limited(resp *http.Response) *http.Response {
	if resp != nil {
		n := t.maxAnswer
		if n <= 0 {
			n = bot.MaxAnswerBytes
		}
		resp.Body = bot.LimitBody(resp.Body, n)
	}
	return resp
}

// retryable reports whether an attempt may be repeated. Setting a commit
// status is safe to repeat (GitLab answers a repeated state with 400
// "Cannot transition status", which the Host accepts).
func retryable(req *http.Request, resp *http.Response, err error) bool {
	idempotent := (req.Method != http.MethodPost && req.Method != http.MethodPatch) ||
		strings.Contains(req.URL.Path, "/statuses/")
	if err != nil {
		return idempotent
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return true
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		return idempotent
	}
	return false
}

// backoff is the wait before attempt+1: Retry-After when GitLab sends it,
// else first·2^attempt with up to 50% jitter, capped at max.
func (t *retryTransport) backoff(attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			return time.Duration(s) * time.Second
		}
	}
	d := t.first << min(attempt, 20)
	if d > t.max || d <= 0 {
		d = t.max
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

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
