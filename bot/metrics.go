package bot

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Metrics are the server's Prometheus metrics, in a registry of their own
// (so tests and several servers do not collide). They use
// prometheus/client_golang, which the binary links anyway (the API
// server's CEL packages import it for their cost metrics).
type Metrics struct {
	registry          *prometheus.Registry
	deliveries        *prometheus.CounterVec
	jobs              *prometheus.CounterVec
	reviews           *prometheus.HistogramVec
	apiCalls          *prometheus.CounterVec
	coalesced         *prometheus.CounterVec
	startFailures     *prometheus.CounterVec
	staleRunsComplete *prometheus.CounterVec
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
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m := &Metrics{
		registry:   prometheus.NewRegistry(),
		deliveries: counter("prodready_webhook_deliveries_total", "Webhook deliveries by event, host and outcome.", "event", "host", "outcome"),
		jobs:       counter("prodready_jobs_total", "Queued jobs by how a worker ended them.", "result"),
		reviews: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "prodready_review_duration_seconds", Help: "Time one review took, by result.", Buckets: reviewBuckets,
		}, []string{"result"}),
		apiCalls:          counter("prodready_api_calls_total", "Calls to host APIs by endpoint, host and HTTP status.", "endpoint", "host", "status"),
		coalesced:         counter("prodready_deliveries_coalesced_total", "Deliveries or jobs absorbed into a review of the same head.", "host", "reason"),
		startFailures:     counter("prodready_review_start_failures_total", "Reviews whose check run or pending status could not be created.", "host"),
		staleRunsComplete: counter("prodready_stale_runs_completed_total", "Check runs a stopped replica left in progress, completed by the sweep.", "host"),
	}
	m.registry.MustRegister(m.deliveries, m.jobs, m.reviews, m.apiCalls, m.coalesced, m.startFailures, m.staleRunsComplete)
	return m
}

// Delivery counts one webhook delivery.
func (m *Metrics) Delivery(host, event, outcome string) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(event, host, outcome).Inc()
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
	m.reviews.WithLabelValues(result).Observe(d.Seconds())
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
	m.jobs.WithLabelValues(result).Inc()
}

// Coalesced counts one delivery, or one queued job, absorbed into a review
// of the same head: reason is CoalescedPending (one is queued or running)
// or CoalescedReviewed (one was completed against the same base).
func (m *Metrics) Coalesced(host, reason string) {
	if m == nil {
		return
	}
	m.coalesced.WithLabelValues(host, reason).Inc()
}

// ReviewStartFailure counts a review whose check run (or pending status)
// could not be created: the job is retried, and on its last attempt the
// review is posted without it.
func (m *Metrics) ReviewStartFailure(host string) {
	if m == nil {
		return
	}
	m.startFailures.WithLabelValues(host).Inc()
}

// StaleRunCompleted counts a check run a stopped replica left in progress
// that the queue's sweep completed (timed out, with a note to re-run).
func (m *Metrics) StaleRunCompleted(host string) {
	if m == nil {
		return
	}
	m.staleRunsComplete.WithLabelValues(host).Inc()
}

// APICall counts one call to a host API; endpoint is a route template such
// as "GET /repos/{owner}/{repo}/pulls/{n}/files"; status 0 means no answer.
func (m *Metrics) APICall(host, endpoint string, status int) {
	if m == nil {
		return
	}
	m.apiCalls.WithLabelValues(endpoint, host, strconv.Itoa(status)).Inc()
}

// QueueDepth makes prodready_queue_depth report depth() when the metrics
// are written. The first call sets it; later calls change nothing.
func (m *Metrics) QueueDepth(depth func() float64) {
	gauge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "prodready_queue_depth", Help: "Reviews waiting for a worker."}, depth)
	_ = m.registry.Register(gauge) // a second call is refused (AlreadyRegisteredError): the first gauge stays
}

// WritePrometheus writes every metric in the Prometheus text format
// (version 0.0.4), sorted by name; label values are escaped as the format
// requires. Callers keep label values to a known few: every distinct value
// is a series kept for the life of the process.
func (m *Metrics) WritePrometheus(w io.Writer) {
	families, err := m.registry.Gather()
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if enc.Encode(f) != nil {
			return // the scraper went away
		}
	}
	if err != nil {
		// Gather returns what it could gather beside the error.
		_, _ = io.WriteString(w, "# prodready: "+strings.ReplaceAll(err.Error(), "\n", " ")+"\n")
	}
}
