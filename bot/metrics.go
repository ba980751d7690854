package bot

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/VictoriaMetrics/metrics"
)

// Metrics are the server's Prometheus metrics, in a set of their own (so
// tests and several servers do not collide).
type Metrics struct {
	set *metrics.Set
}

// reviewBuckets are the upper bounds, in seconds, of the review duration
// histogram.
var reviewBuckets = []float64{0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160}

// NewMetrics creates an empty set of metrics. The series appear as they
// are counted:
//   - prodready_webhook_deliveries_total{event,host,outcome}: webhook
//     deliveries by host, event ("unverified" until the credentials
//     verify) and outcome (queued, ignored, duplicate, coalesced: the
//     review it asks for is pending or done, queue_full: the stream's own
//     limits refused the job, storage_full: the disk or JetStream's storage
//     is full, queue_unavailable: JetStream does not answer or cannot
//     write, shutting_down, over_budget: the body budget
//     was spent, bad_signature, too_large, bad_request, disabled, error);
//     every 503 is one of queue_full, storage_full, queue_unavailable,
//     shutting_down and over_budget;
//   - prodready_jobs_total{result}: queued jobs by how a worker ended them
//     (done, coalesced, superseded, retry, interrupted, dead; Job);
//   - prodready_review_duration_seconds{result}: time one review took, by
//     result (ok, error);
//   - prodready_api_calls_total{endpoint,host,status}: calls to host APIs
//     by endpoint, host and HTTP status;
//   - prodready_queue_depth: reviews waiting for a worker (QueueDepth);
//   - prodready_deliveries_coalesced_total{host,reason}: deliveries (or
//     jobs) absorbed into a review of the same head that is pending or
//     done, so that they start no review and no check run (Coalesced).
func NewMetrics() *Metrics {
	// TYPE lines let Prometheus tell the histogram from its parts; the
	// setting is the process's, and these are its only metrics.
	metrics.ExposeMetadata(true)
	return &Metrics{set: metrics.NewSet()}
}

// Delivery counts one webhook delivery.
func (m *Metrics) Delivery(host, event, outcome string) {
	if m == nil {
		return
	}
	m.set.GetOrCreateCounter(series("prodready_webhook_deliveries_total", "event", event, "host", host, "outcome", outcome)).Inc()
}

// Review records one review's duration.
func (m *Metrics) Review(d time.Duration, err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.set.GetOrCreatePrometheusHistogramExt(series("prodready_review_duration_seconds", "result", result), reviewBuckets).Update(d.Seconds())
}

// Job counts one delivery of a queued job to a worker, by result: done
// (reviewed and published, or nothing to publish), coalesced (the same
// head was reviewed against the same base already: nothing done, no API
// call), superseded (the pull
// request's head moved on: nothing published), retry (failed; delivered
// again after a backoff), interrupted (the replica stopped; delivered
// again), dead (failed for good: its check run failed, the job kept in the
// dead-letter subject).
func (m *Metrics) Job(result string) {
	if m == nil {
		return
	}
	m.set.GetOrCreateCounter(series("prodready_jobs_total", "result", result)).Inc()
}

// Coalesced counts one delivery, or one queued job, absorbed into a review
// of the same head: reason is CoalescedPending (one is queued or running)
// or CoalescedReviewed (one was completed against the same base).
func (m *Metrics) Coalesced(host, reason string) {
	if m == nil {
		return
	}
	m.set.GetOrCreateCounter(series("prodready_deliveries_coalesced_total", "host", host, "reason", reason)).Inc()
}

// ReviewStartFailure counts a review whose check run (or pending status)
// could not be created: the job is retried, and on its last attempt the
// review is posted without it.
func (m *Metrics) ReviewStartFailure(host string) {
	if m == nil {
		return
	}
	m.set.GetOrCreateCounter(series("prodready_review_start_failures_total", "host", host)).Inc()
}

// StaleRunCompleted counts a check run a stopped replica left in progress
// that the queue's sweep completed (timed out, with a note to re-run).
func (m *Metrics) StaleRunCompleted(host string) {
	if m == nil {
		return
	}
	m.set.GetOrCreateCounter(series("prodready_stale_runs_completed_total", "host", host)).Inc()
}

// APICall counts one call to a host API; endpoint is a route template such
// as "GET /repos/{owner}/{repo}/pulls/{n}/files"; status 0 means no answer.
func (m *Metrics) APICall(host, endpoint string, status int) {
	if m == nil {
		return
	}
	m.set.GetOrCreateCounter(series("prodready_api_calls_total", "endpoint", endpoint, "host", host, "status", strconv.Itoa(status))).Inc()
}

// QueueDepth makes prodready_queue_depth report depth() when the metrics
// are written. The first call sets it; later calls change nothing.
func (m *Metrics) QueueDepth(depth func() float64) {
	m.set.GetOrCreateGauge("prodready_queue_depth", depth)
}

// WritePrometheus writes every metric in the Prometheus text format,
// sorted by name.
func (m *Metrics) WritePrometheus(w io.Writer) {
	m.set.WritePrometheus(w)
}

// series names one series: the metric's name and its label pairs (name,
// value, name, value…, in the order given), each value escaped as the
// text format requires. Callers keep label values to a known few: every
// distinct value is a series kept for the life of the process.
func series(name string, labels ...string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('{')
	for i := 0; i+1 < len(labels); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(labels[i])
		b.WriteString(`="`)
		labelValueEscaper.WriteString(&b, labels[i+1])
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// labelValueEscaper escapes a label value for the Prometheus text format:
// backslash, double quote and line feed are the characters it escapes.
var labelValueEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
