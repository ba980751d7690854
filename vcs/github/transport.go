package github

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/retry"
)

// DefaultRetryBudget is how long one API call may spend waiting for
// retries and rate limits before its last answer is returned.
const DefaultRetryBudget = retry.DefaultBudget

// secondaryLimitWait is the least wait after a secondary rate limit that
// names no time: GitHub asks for at least a minute.
const secondaryLimitWait = time.Minute

// RetryTransport is GitHub's configuration of the shared retry transport
// (internal/retry): it retries API calls with exponential backoff from one
// second on 5xx answers, network errors and secondary rate limits (403/429
// with Retry-After or an "exceeded a secondary rate limit" body, a minute
// at least), waits for the primary limit's reset when
// x-ratelimit-remaining reaches 0, and gives up when the next wait would
// exceed Budget. A create of a check run, review or comment, and a
// check-run update that appends annotations, is repeated only after a
// rate limit (GitHub did nothing), never after a 5xx or a lost answer: the
// Host looks for what the first attempt created instead (repeatable). It
// counts every call in Metrics.
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
	Now func() time.Time
	// Metrics counts every call (nil: not counted).
	Metrics *bot.Metrics

	once  sync.Once
	inner *retry.Transport
}

// RoundTrip sends req, retrying as described on RetryTransport.
func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.once.Do(func() {
		attempts := t.MaxAttempts
		if attempts <= 0 {
			attempts = 6
		}
		t.inner = &retry.Transport{
			Base: sendVia{t}, Host: "github", Metrics: t.Metrics,
			Endpoint:    func(r *http.Request) string { return Endpoint(r.Method, r.URL.Path) },
			Budget:      t.Budget,
			MaxAttempts: attempts,
			Repeatable:  repeatable,
			FirstWait:   time.Second,
			LimitWait:   secondaryLimitWait,
			Now:         t.Now, Sleep: t.Sleep, MaxAnswerBytes: t.MaxAnswerBytes,
		}
	})
	return t.inner.RoundTrip(req)
}

// sendVia sends through the RetryTransport's Base as it is at the time of
// the call.
type sendVia struct{ t *RetryTransport }

func (s sendVia) RoundTrip(req *http.Request) (*http.Response, error) {
	if s.t.Base != nil {
		return s.t.Base.RoundTrip(req)
	}
	return http.DefaultTransport.RoundTrip(req)
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
