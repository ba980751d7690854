package bot

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestMetricsText checks what /metrics serves: each series with its labels
// in name order, the histogram's cumulative buckets, the queue depth read
// when it is scraped, TYPE lines, and a label value that needs escaping
// written so the text format still parses.
func TestMetricsText(t *testing.T) {
	m := NewMetrics()
	m.Delivery("github", "pull_request", "queued")
	m.Delivery("github", "pull_request", "queued")
	m.Delivery("gitlab", "Merge Request Hook", "bad_signature")
	m.APICall("github", `GET /x/"quoted"\path`+"\nline", 200)
	m.Review(300*time.Millisecond, nil)
	m.Review(3*time.Second, errors.New("boom"))
	depth := 0
	srv := NewServer(nil, m, nil)
	m.QueueDepth(func() float64 { return float64(depth) }) // the server's gauge stays
	depth = 7

	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	text := string(body)
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("/metrics answered %d, %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	for _, want := range []string{
		`prodready_webhook_deliveries_total{event="pull_request",host="github",outcome="queued"} 2`,
		`prodready_webhook_deliveries_total{event="Merge Request Hook",host="gitlab",outcome="bad_signature"} 1`,
		`prodready_api_calls_total{endpoint="GET /x/\"quoted\"\\path\nline",host="github",status="200"} 1`,
		`prodready_review_duration_seconds_bucket{result="ok",le="0.25"} 0`,
		`prodready_review_duration_seconds_bucket{result="ok",le="0.5"} 1`,
		`prodready_review_duration_seconds_bucket{result="ok",le="+Inf"} 1`,
		`prodready_review_duration_seconds_bucket{result="error",le="2"} 0`,
		`prodready_review_duration_seconds_bucket{result="error",le="5"} 1`,
		`prodready_review_duration_seconds_count{result="error"} 1`,
		`prodready_queue_depth 0`, // the server's pool is nil: nothing waits
		`# TYPE prodready_webhook_deliveries_total counter`,
		`# TYPE prodready_review_duration_seconds histogram`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("/metrics lacks %s\n%s", want, text)
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !strings.HasPrefix(line, "# ") && !strings.HasPrefix(line, "prodready_") {
			t.Errorf("a line that is neither a comment nor a series (an escape failed?): %q", line)
		}
	}
}

// TestMetricsNilIsANoOp checks that a nil *Metrics counts nothing and does
// not panic: host adapters may run without metrics.
func TestMetricsNilIsANoOp(t *testing.T) {
	var m *Metrics
	m.Delivery("github", "push", "ignored")
	m.APICall("github", "GET /", 200)
	m.Review(time.Second, nil)
}
