package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prodready/prodready/bot"
)

// DefaultRetryBudget is how long one API call may spend waiting for
// retries and rate limits before its last answer is returned.
const DefaultRetryBudget = 2 * time.Minute

// RetryTransport retries GitHub API calls with exponential backoff on 5xx
// answers, network errors and secondary rate limits (403/429 with
// Retry-After or an "exceeded a secondary rate limit" body), waits for the
// primary limit's reset when x-ratelimit-remaining reaches 0, and gives up
// when the next wait would exceed Budget. It counts every call in Metrics.
type RetryTransport struct {
	// Base sends the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
	// Budget bounds the total waiting per call (DefaultRetryBudget when 0).
	Budget time.Duration
	// MaxAttempts bounds tries per call (6 when 0).
	MaxAttempts int
	// Sleep waits d or until ctx ends (a real timer when nil; tests
	// replace it to run without waiting).
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxAnswerBytes bounds the body read of every answer
	// (bot.MaxAnswerBytes when 0): a blob or listing that claims, or sends,
	// more fails its call instead of filling memory.
	MaxAnswerBytes int64
	// Now returns the current time (time.Now when nil).
	Now     func() time.Time
	Metrics *bot.Metrics

	mu           sync.Mutex
	blockedUntil time.Time // primary limit exhausted until then
}

func (t *RetryTransport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

func (t *RetryTransport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *RetryTransport) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if t.Sleep != nil {
		return t.Sleep(ctx, d)
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// RoundTrip sends req, retrying as described on RetryTransport.
func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	budget := t.Budget
	if budget <= 0 {
		budget = DefaultRetryBudget
	}
	attempts := t.MaxAttempts
	if attempts <= 0 {
		attempts = 6
	}
	var waited time.Duration
	endpoint := Endpoint(req.Method, req.URL.Path)
	backoff := time.Second
	for attempt := 1; ; attempt++ {
		t.mu.Lock()
		block := t.blockedUntil.Sub(t.now())
		t.mu.Unlock()
		if block > 0 {
			if waited+block > budget {
				return nil, fmt.Errorf("%s: GitHub rate limit exhausted for another %s", endpoint, block.Round(time.Second))
			}
			if err := t.sleep(ctx, block); err != nil {
				return nil, err
			}
			waited += block
		}
		r := req
		if attempt > 1 {
			r = req.Clone(ctx)
			if req.Body != nil && req.GetBody != nil {
				b, err := req.GetBody()
				if err != nil {
					return nil, fmt.Errorf("%s: rewinding body for retry: %w", endpoint, err)
				}
				r.Body = b
			}
		}
		resp, err := t.base().RoundTrip(r)
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Metrics.APICall("github", endpoint, status)
		if err == nil {
			t.noteLimits(resp)
		}
		wait, retry := t.retryAfter(resp, err, backoff)
		if !retry || attempt >= attempts || waited+wait > budget || (req.Body != nil && req.GetBody == nil) {
			if resp != nil {
				limit := t.MaxAnswerBytes
				if limit <= 0 {
					limit = bot.MaxAnswerBytes
				}
				resp.Body = bot.LimitBody(resp.Body, limit)
			}
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
		waited += wait
		backoff *= 2
	}
}

var secondaryRE = regexp.MustCompile(`(?i)secondary rate limit|abuse detection`)

// retryAfter says whether to retry an answer and after how long.
func (t *RetryTransport) retryAfter(resp *http.Response, err error, backoff time.Duration) (time.Duration, bool) {
	if err != nil {
		return backoff, true
	}
	switch {
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		if d, ok := t.headerWait(resp); ok {
			return max(d, backoff), true
		}
		return backoff, true
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusForbidden:
		if d, ok := t.headerWait(resp); ok {
			return d, true
		}
		// A secondary limit without headers: GitHub asks for at least a minute.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if resp.StatusCode == http.StatusTooManyRequests || secondaryRE.Match(body) {
			return max(backoff, time.Minute), true
		}
	}
	return 0, false
}

// headerWait reads Retry-After, or the reset time when the primary limit is
// exhausted.
func (t *RetryTransport) headerWait(resp *http.Response) (time.Duration, bool) {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return time.Duration(n) * time.Second, true
		}
	}
	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			return max(time.Unix(reset, 0).Sub(t.now()), 0) + time.Second, true
		}
	}
	return 0, false
}

// noteLimits remembers an exhausted primary limit so later calls wait for
// its reset instead of being refused.
func (t *RetryTransport) noteLimits(resp *http.Response) {
	if resp.Header.Get("X-Ratelimit-Remaining") != "0" {
		return
	}
	reset, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64)
	if err != nil {
		return
	}
	t.mu.Lock()
	t.blockedUntil = time.Unix(reset, 0).Add(time.Second)
	t.mu.Unlock()
}

var hexSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Endpoint turns a request into a route template for metrics, e.g.
// "GET /repos/{owner}/{repo}/pulls/{n}/files".
func Endpoint(method, path string) string {
	path = strings.TrimPrefix(path, "/api/v3")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		switch {
		case parts[0] == "repos" && i == 1:
			parts[i] = "{owner}"
		case parts[0] == "repos" && i == 2:
			parts[i] = "{repo}"
		case i > 0 && parts[i-1] == "contents":
			parts = append(parts[:i], "{path}")
			i = len(parts)
		case hexSHA.MatchString(p):
			parts[i] = "{sha}"
		case isNumber(p):
			parts[i] = "{n}"
		}
	}
	return method + " /" + strings.Join(parts, "/")
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
