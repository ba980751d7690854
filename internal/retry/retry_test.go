package retry

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

// statuses answers each request with the next status of the list (and
// headers, "Name: value" strings, after it) and counts the calls.
type statuses struct {
	answers [][]string
	calls   int
}

func script(answers ...[]string) *statuses { return &statuses{answers: answers} }

func (s *statuses) RoundTrip(r *http.Request) (*http.Response, error) {
	a := s.answers[s.calls]
	s.calls++
	code, _ := strconv.Atoi(a[0])
	h := http.Header{}
	for _, kv := range a[1:] {
		k, v, _ := strings.Cut(kv, ": ")
		h.Set(k, v)
	}
	return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}

// clocked returns a transport over base whose clock moves only when it
// waits, and the waits it made.
func clocked(base http.RoundTripper) (*Transport, *[]time.Duration) {
	now := time.Unix(1_000_000, 0)
	var waits []time.Duration
	return &Transport{Base: base, Host: "test", Now: func() time.Time { return now }, Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		now = now.Add(d)
		return nil
	}}, &waits
}

func TestGitLabRateLimitResetOn429(t *testing.T) {
	reset := strconv.FormatInt(time.Unix(1_000_000, 0).Add(20*time.Second).Unix(), 10)
	base := script([]string{"429", "RateLimit-Remaining: 0", "RateLimit-Reset: " + reset}, []string{"200"})
	tr, waits := clocked(base)
	req, _ := http.NewRequest("POST", "https://gitlab.example/api/v4/projects/1/merge_requests/1/discussions", strings.NewReader("{}"))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("{}")), nil }
	tr.Repeatable = func(*http.Request) bool { return false } // a 429 is repeated anyway
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 || base.calls != 2 {
		t.Fatalf("status %v err %v after %d calls, want 200 after 2", resp, err, base.calls)
	}
	if fmt.Sprint(*waits) != "[21s]" {
		t.Errorf("waits = %v, want [21s] (until RateLimit-Reset, plus a second)", *waits)
	}
}

func TestNotRepeatableIsNotRetriedAfter5xx(t *testing.T) {
	base := script([]string{"502"}, []string{"200"})
	tr, _ := clocked(base)
	tr.Repeatable = func(r *http.Request) bool { return r.Method != http.MethodPost }
	req, _ := http.NewRequest("POST", "https://gitlab.example/api/v4/x", http.NoBody)
	if resp, _ := tr.RoundTrip(req); resp.StatusCode != 502 || base.calls != 1 {
		t.Errorf("POST after 502: status %d after %d calls, want 502 after 1", resp.StatusCode, base.calls)
	}
	base = script([]string{"502"}, []string{"200"})
	tr.Base = base
	req, _ = http.NewRequest("GET", "https://gitlab.example/api/v4/x", nil)
	if resp, _ := tr.RoundTrip(req); resp.StatusCode != 200 || base.calls != 2 {
		t.Errorf("GET after 502: status %d after %d calls, want 200 after 2", resp.StatusCode, base.calls)
	}
}

func TestBackoffDoublesWithinMaxAndJitter(t *testing.T) {
	base := script()
	for range 6 {
		base.answers = append(base.answers, []string{"503"})
	}
	base.answers = append(base.answers, []string{"200"})
	tr, waits := clocked(base)
	tr.FirstWait, tr.MaxWait, tr.Jitter = 100*time.Millisecond, 400*time.Millisecond, true
	req, _ := http.NewRequest("GET", "https://x/y", nil)
	if resp, _ := tr.RoundTrip(req); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	want := []time.Duration{100, 200, 400, 400, 400, 400}
	for i, w := range want {
		w *= time.Millisecond
		if d := (*waits)[i]; d < w/2 || d > w {
			t.Errorf("wait %d = %v, want within [%v, %v]", i, d, w/2, w)
		}
	}
}

func TestLimitWaitWithoutHeaders(t *testing.T) {
	base := script([]string{"429"}, []string{"200"})
	tr, waits := clocked(base)
	tr.LimitWait = time.Minute
	req, _ := http.NewRequest("GET", "https://x/y", nil)
	if resp, _ := tr.RoundTrip(req); resp.StatusCode != 200 || fmt.Sprint(*waits) != "[1m0s]" {
		t.Errorf("429 without headers: status %d waits %v, want 200 after [1m0s]", resp.StatusCode, *waits)
	}
}

func TestBudgetEndsRetries(t *testing.T) {
	base := script([]string{"503", "Retry-After: 90"}, []string{"200"})
	tr, waits := clocked(base)
	tr.Budget = time.Minute
	req, _ := http.NewRequest("GET", "https://x/y", nil)
	if resp, _ := tr.RoundTrip(req); resp.StatusCode != 503 || len(*waits) != 0 {
		t.Errorf("status %d after waits %v, want the 503 at once (90s > budget)", resp.StatusCode, *waits)
	}
}
