package github

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// scripted answers requests from a list and records them.
type scripted struct {
	answers []*http.Response
	bodies  []string
}

func (s *scripted) RoundTrip(r *http.Request) (*http.Response, error) {
	b := ""
	if r.Body != nil {
		data, _ := io.ReadAll(r.Body)
		b = string(data)
	}
	s.bodies = append(s.bodies, b)
	resp := s.answers[0]
	s.answers = s.answers[1:]
	resp.Request = r
	return resp, nil
}

func answer(status int, headers ...string) *http.Response {
	h := http.Header{}
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], headers[i+1])
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(`{"message":"x"}`))}
}

func TestRetryTransportPrimaryLimit(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	unix := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	base := &scripted{answers: []*http.Response{
		answer(403, "X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", unix(30*time.Second)),
		answer(200, "X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", unix(60*time.Second)),
		answer(201),
	}}
	var waits []time.Duration
	tr := &RetryTransport{Base: base, Now: func() time.Time { return now }, Sleep: func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		now = now.Add(d) // the clock moves while we wait
		return nil
	}}
	req, _ := http.NewRequest("POST", "https://api.github.com/repos/o/r/check-runs", strings.NewReader(`{"name":"x"}`))
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("resp %v err %v", resp, err)
	}
	// The 200 still said remaining 0 (reset at +60s): the next call waits
	// for the reset before it is sent.
	req2, _ := http.NewRequest("GET", "https://api.github.com/repos/o/r/pulls/1/files", nil)
	if resp, err := tr.RoundTrip(req2); err != nil || resp.StatusCode != 201 {
		t.Fatalf("second call: %v %v", resp, err)
	}
	if fmt.Sprint(waits) != "[31s 30s]" {
		t.Errorf("waits = %v, want [31s 30s]", waits)
	}
	if base.bodies[0] != `{"name":"x"}` || base.bodies[1] != `{"name":"x"}` {
		t.Errorf("the retried POST lost its body: %q", base.bodies)
	}
}

func TestRetryTransportBudget(t *testing.T) {
	base := &scripted{answers: []*http.Response{answer(429, "Retry-After", "600"), answer(200)}}
	tr := &RetryTransport{Base: base, Budget: time.Minute, Sleep: func(ctx context.Context, d time.Duration) error {
		t.Errorf("slept %s beyond the budget", d)
		return nil
	}}
	req, _ := http.NewRequest("GET", "https://api.github.com/x", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 429 {
		t.Fatalf("want the 429 back when the wait exceeds the budget, got %v %v", resp, err)
	}
}

func TestRetryTransportDoesNotRetryClientErrors(t *testing.T) {
	base := &scripted{answers: []*http.Response{answer(422), answer(200)}}
	tr := &RetryTransport{Base: base, Sleep: func(ctx context.Context, d time.Duration) error { return nil }}
	req, _ := http.NewRequest("POST", "https://api.github.com/x", strings.NewReader("{}"))
	resp, _ := tr.RoundTrip(req)
	if resp.StatusCode != 422 || len(base.bodies) != 1 {
		t.Errorf("status %d after %d calls, want 422 after 1", resp.StatusCode, len(base.bodies))
	}
	// A plain 403 (no limit headers, no secondary-limit text) is not retried either.
	base = &scripted{answers: []*http.Response{answer(403), answer(200)}}
	tr.Base = base
	req, _ = http.NewRequest("GET", "https://api.github.com/x", nil)
	if resp, _ := tr.RoundTrip(req); resp.StatusCode != 403 || len(base.bodies) != 1 {
		t.Errorf("plain 403: status %d after %d calls", resp.StatusCode, len(base.bodies))
	}
}

func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"/repos/o/r/pulls/12/files":                                     "GET /repos/{owner}/{repo}/pulls/{n}/files",
		"/api/v3/repos/o/r/contents/deploy/a.yaml":                      "GET /repos/{owner}/{repo}/contents/{path}",
		"/repos/o/r/git/trees/0123456789abcdef0123456789abcdef01234567": "GET /repos/{owner}/{repo}/git/trees/{sha}",
		"/app/installations/5/access_tokens":                            "GET /app/installations/{n}/access_tokens",
	} {
		if got := Endpoint("GET", in); got != want {
			t.Errorf("Endpoint(%s) = %s, want %s", in, got, want)
		}
	}
}
