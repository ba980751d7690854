package bot

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the server's Prometheus metrics, registered on their own
// registry (so tests and several servers do not collide).
type Metrics struct {
	// Registry holds every metric below; /metrics serves it.
	Registry       *prometheus.Registry
	deliveries     *prometheus.CounterVec
	reviewDuration *prometheus.HistogramVec
	apiCalls       *prometheus.CounterVec
}

// NewMetrics creates and registers the metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "prodready_webhook_deliveries_total",
			Help: "Webhook deliveries by host, event and outcome (queued, ignored, duplicate, queue_full, bad_signature, too_large, bad_request).",
		}, []string{"host", "event", "outcome"}),
		reviewDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "prodready_review_duration_seconds",
			Help:    "Time one review took, by result (ok, error).",
			Buckets: []float64{0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160},
		}, []string{"result"}),
		apiCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "prodready_api_calls_total",
			Help: "Calls to host APIs by host, endpoint and HTTP status.",
		}, []string{"host", "endpoint", "status"}),
	}
	m.Registry.MustRegister(m.deliveries, m.reviewDuration, m.apiCalls)
	return m
}

// Delivery counts one webhook delivery.
func (m *Metrics) Delivery(host, event, outcome string) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(host, event, outcome).Inc()
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
	m.reviewDuration.WithLabelValues(result).Observe(d.Seconds())
}

// APICall counts one call to a host API; endpoint is a route template such
// as "GET /repos/{owner}/{repo}/pulls/{n}/files"; status 0 means no answer.
func (m *Metrics) APICall(host, endpoint string, status int) {
	if m == nil {
		return
	}
	m.apiCalls.WithLabelValues(host, endpoint, strconv.Itoa(status)).Inc()
}
