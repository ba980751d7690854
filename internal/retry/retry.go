// Package retry is the HTTP transport both host adapters send their API
// calls through: it retries 5xx answers and network errors with
// exponential backoff, waits out rate limits the way GitHub and GitLab
// document them, bounds the total waiting per call, bounds the body read of
// every answer, and counts every attempt.
//
// Rate-limit headers it honours (Header.Get is case-insensitive):
//   - Retry-After (seconds), on 429, on 403 and on 5xx answers (both hosts);
//   - X-RateLimit-Remaining: 0 with X-RateLimit-Reset (GitHub's primary
//     limit) and RateLimit-Remaining: 0 with RateLimit-Reset (GitLab), both
//     Unix times: the call waits for the reset, and so do later calls;
//   - a 403 whose body says "secondary rate limit" (GitHub) without
//     headers, and a 429 without headers: waited at least LimitWait.
package retry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prodready/prodready/bot"
)

// Transport is an http.RoundTripper that retries within a time budget. Its
// zero value (plus Base) retries for DefaultBudget; an adapter sets the
// fields its host's rules call for. It is safe for concurrent use.
type Transport struct {
	// Base sends the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
	// Host labels the metrics and errors ("github", "gitlab").
	Host string
	// Endpoint names a request for metrics without its variable parts
	// (method and path when nil).
	Endpoint func(req *http.Request) string
	// Metrics counts every attempt by host, endpoint and status (nil: not
	// counted).
	Metrics *bot.Metrics
	// Budget bounds the total waiting per call (DefaultBudget when 0): the
	// last answer is returned when the next wait would exceed it.
	Budget time.Duration
	// MaxAttempts bounds tries per call (0: only the budget bounds them).
	MaxAttempts int
	// FirstWait is the backoff before the second attempt (one second when
	// 0); it doubles each attempt, up to MaxWait when MaxWait > 0.
	FirstWait, MaxWait time.Duration
	// Jitter waits a random time between half the backoff and all of it.
	Jitter bool
	// LimitWait is the least wait after a rate limit that names no time
	// (GitHub asks for a minute after a secondary limit); 0: the backoff.
	LimitWait time.Duration
	// Repeatable reports whether a request the server may have carried out
	// (answered 5xx, or failed before an answer) may be sent again; nil
	// means every request. A request refused by a rate limit is always
	// repeated.
	Repeatable func(req *http.Request) bool
	// MaxAnswerBytes bounds the body read of every answer
	// (bot.MaxAnswerBytes when 0): an answer that sends more fails its read
	// instead of filling memory.
	MaxAnswerBytes int64
	// Now returns the current time (time.Now when nil).
	Now func() time.Time
	// Sleep waits d or until ctx ends (a real timer when nil; tests
	// replace it to run without waiting). It is called for every wait,
	// "Retry-After: 0" included.
	Sleep func(ctx context.Context, d time.Duration) error

	mu           sync.Mutex
	blockedUntil time.Time // primary limit exhausted until then
}

// DefaultBudget is how long one call may wait for retries and rate limits
// when Transport.Budget is 0.
const DefaultBudget = 2 * time.Minute

// drainBytes is how much of a retried answer's body is read so its
// connection can be reused.
const drainBytes = 1 << 20

// RoundTrip sends req, retrying as described on Transport.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	budget := t.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	backoff := t.FirstWait
	if backoff <= 0 {
		backoff = time.Second
	}
	endpoint := req.Method + " " + req.URL.Path
	if t.Endpoint != nil {
		endpoint = t.Endpoint(req)
	}
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		t.mu.Lock()
		block := t.blockedUntil.Sub(t.now())
		t.mu.Unlock()
		if block > 0 {
			if waited+block > budget {
				return nil, fmt.Errorf("%s: %s rate limit exhausted for another %s", endpoint, t.Host, block.Round(time.Second))
			}
			if err := t.sleep(ctx, block); err != nil {
				return nil, err
			}
			waited += block
		}
		r := req
		if attempt > 1 {
			r = req.Clone(ctx)
			if req.GetBody != nil {
				b, err := req.GetBody()
				if err != nil {
					return nil, fmt.Errorf("%s: rewinding the request body for a retry: %w", endpoint, err)
				}
				r.Body = b
			}
		}
		resp, err := t.base().RoundTrip(r)
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Metrics.APICall(t.Host, endpoint, status)
		if err == nil {
			t.noteLimits(resp)
		}
		wait, retry := t.retryAfter(req, resp, err, t.backoff(backoff))
		if !retry || !replayable || (t.MaxAttempts > 0 && attempt >= t.MaxAttempts) || waited+wait > budget {
			return t.limited(ctx, resp), err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, drainBytes))
			resp.Body.Close()
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
		waited += wait
		backoff *= 2
		if t.MaxWait > 0 && (backoff > t.MaxWait || backoff <= 0) {
			backoff = t.MaxWait
		}
	}
}

// backoff is the wait for the current backoff d, jittered when asked.
func (t *Transport) backoff(d time.Duration) time.Duration {
	if !t.Jitter {
		return d
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

var secondaryRE = regexp.MustCompile(`(?i)secondary rate limit|abuse detection`)

// retryAfter says whether to retry an answer and after how long; backoff
// is the wait when the answer names none.
func (t *Transport) retryAfter(req *http.Request, resp *http.Response, err error, backoff time.Duration) (time.Duration, bool) {
	repeatable := t.Repeatable == nil || t.Repeatable(req)
	if err != nil {
		return backoff, repeatable
	}
	switch {
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		if d, ok := t.headerWait(resp); ok {
			return max(d, backoff), repeatable
		}
		return backoff, repeatable
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusForbidden:
		if d, ok := t.headerWait(resp); ok {
			return d, true
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			return max(backoff, t.LimitWait), true
		}
		// A 403 is a refusal unless its body names a secondary limit.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if secondaryRE.Match(body) {
			return max(backoff, t.LimitWait), true
		}
	}
	return 0, false
}

// headerWait reads Retry-After, or the reset time when the limit is
// exhausted.
func (t *Transport) headerWait(resp *http.Response) (time.Duration, bool) {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return time.Duration(n) * time.Second, true
		}
	}
	if reset, ok := exhaustedUntil(resp.Header); ok {
		return max(reset.Sub(t.now()), 0) + time.Second, true
	}
	return 0, false
}

// exhaustedUntil returns the reset time of a limit the headers say is used
// up: GitHub's X-RateLimit-* or GitLab's RateLimit-* pair.
func exhaustedUntil(h http.Header) (time.Time, bool) {
	for _, prefix := range []string{"X-Ratelimit-", "Ratelimit-"} {
		if h.Get(prefix+"Remaining") != "0" {
			continue
		}
		if reset, err := strconv.ParseInt(strings.TrimSpace(h.Get(prefix+"Reset")), 10, 64); err == nil {
			return time.Unix(reset, 0), true
		}
	}
	return time.Time{}, false
}

// noteLimits remembers an exhausted limit so later calls wait for its reset
// instead of being refused.
func (t *Transport) noteLimits(resp *http.Response) {
	reset, ok := exhaustedUntil(resp.Header)
	if !ok {
		return
	}
	t.mu.Lock()
	t.blockedUntil = reset.Add(time.Second)
	t.mu.Unlock()
}

// limited bounds resp's body to MaxAnswerBytes, or to the request's own
// tighter bot.AnswerLimit.
func (t *Transport) limited(ctx context.Context, resp *http.Response) *http.Response {
	if resp != nil {
		n := t.MaxAnswerBytes
		if n <= 0 {
			n = bot.MaxAnswerBytes
		}
		if own, ok := bot.AnswerLimit(ctx); ok && own > 0 {
			n = min(n, own)
		}
		resp.Body = bot.LimitBody(resp.Body, n)
	}
	return resp
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Transport) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		return t.Sleep(ctx, max(d, 0))
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or until ctx ends (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
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
