package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
)

// MaxWebhookBody is the largest webhook body accepted (GitHub's maximum
// payload, 25 MiB); larger bodies are answered 413.
const MaxWebhookBody = 25 << 20

// Server is the HTTP server: webhook routes registered by each host adapter,
// GET /healthz (liveness: 503 when a queue that reports it says a restart
// is due, LivenessReporter), GET /readyz (configuration loaded, workers
// running and, for a queue that reports its health, its store able to take
// jobs; never calls a host) and GET /metrics (Prometheus).
type Server struct {
	echo    *echo.Echo
	pool    Queue
	metrics *Metrics
	logger  *slog.Logger
	ready   atomic.Bool
	http    *http.Server
	// Timeouts bound each connection (DefaultTimeouts from NewServer);
	// change them before Serve.
	Timeouts Timeouts
}

// Timeouts are the HTTP server's per-connection limits. They keep a client
// that sends its headers or body slowly (slow-loris) or never reads the
// answer from holding a connection.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers.
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included.
	Read time.Duration
	// Write bounds writing the answer.
	Write time.Duration
	// Idle bounds a kept-alive connection waiting for its next request.
	Idle time.Duration
}

// DefaultTimeouts are the limits a Server starts with.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, Read: 60 * time.Second, Write: 60 * time.Second, Idle: 120 * time.Second}

// NewServer returns a server whose readiness follows pool (a Pool or a
// durable queue; nil for none) and whose /metrics serves metrics (with the
// queue depth added).
func NewServer(pool Queue, metrics *Metrics, logger *slog.Logger) *Server {
	if logger == nil {
		logger = slog.Default()
	}
	if metrics == nil {
		metrics = NewMetrics()
	}
	e := echo.New()
	s := &Server{echo: e, pool: pool, metrics: metrics, logger: logger, Timeouts: DefaultTimeouts}
	metrics.QueueDepth(func() float64 {
		if pool == nil {
			return 0
		}
		return float64(pool.Depth())
	})
	e.GET("/healthz", func(c *echo.Context) error {
		if lr, ok := pool.(LivenessReporter); ok {
			if err := lr.Live(); err != nil {
				return c.String(http.StatusServiceUnavailable, "not live: "+err.Error()+"\n")
			}
		}
		return c.String(http.StatusOK, "ok\n")
	})
	e.GET("/readyz", func(c *echo.Context) error {
		if err := s.notReady(); err != "" {
			return c.String(http.StatusServiceUnavailable, "not ready: "+err+"\n")
		}
		return c.String(http.StatusOK, "ready\n")
	})
	e.GET("/metrics", func(c *echo.Context) error {
		c.Response().Header().Set(echo.HeaderContentType, "text/plain; version=0.0.4; charset=utf-8")
		metrics.WritePrometheus(c.Response())
		return nil
	})
	return s
}

// HealthReporter is a queue that can tell why it cannot store a job now
// (a durable queue whose store is full or does not answer). While Health
// returns an error, /readyz answers 503 with it, so that the replica
// leaves the Service's endpoints until the store can take jobs again.
// Health must be cheap: readiness probes call it.
type HealthReporter interface {
	Health() error
}

// LivenessReporter is a queue that can tell when the process should be
// restarted (its store has not come back by itself): while Live returns an
// error, /healthz answers 503 with it. Live must be cheap: liveness probes
// call it.
type LivenessReporter interface {
	Live() error
}

// notReady is why /readyz answers 503, or "" when the server is ready.
func (s *Server) notReady() string {
	switch {
	case !s.ready.Load():
		return "not started, or shutting down"
	case s.pool == nil || !s.pool.Running():
		return "the review queue is not running"
	}
	if hr, ok := s.pool.(HealthReporter); ok {
		if err := hr.Health(); err != nil {
			return err.Error()
		}
	}
	return ""
}

// Handle registers a route: each host's webhook is a Webhook with the
// host's Intake, e.g. srv.Handle("POST", "/webhooks/gitlab", &Webhook{…}).
func (s *Server) Handle(method, path string, h http.Handler) {
	s.echo.Add(method, path, echo.WrapHandler(h))
}

// SetReady marks the configuration as loaded (or not); /readyz also needs
// the pool running.
func (s *Server) SetReady(ok bool) { s.ready.Store(ok) }

// Handler returns the server's HTTP handler (for httptest).
func (s *Server) Handler() http.Handler { return s.echo }

// Metrics returns the server's metrics.
func (s *Server) Metrics() *Metrics { return s.metrics }

// Serve accepts connections on l until Shutdown; it returns nil after a
// clean shutdown.
func (s *Server) Serve(l net.Listener) error {
	s.http = &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: s.Timeouts.ReadHeader,
		ReadTimeout:       s.Timeouts.Read,
		WriteTimeout:      s.Timeouts.Write,
		IdleTimeout:       s.Timeouts.Idle,
	}
	err := s.http.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops taking deliveries (readiness goes down, the listener
// closes, in-flight requests finish), then lets running reviews finish
// until ctx ends (the grace period): reviews that cannot finish end their
// check runs with a note to re-run.
func (s *Server) Shutdown(ctx context.Context) error {
	s.SetReady(false)
	var errs []error
	if s.http != nil {
		if err := s.http.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("closing listener: %w", err))
		}
	}
	if s.pool != nil {
		if err := s.pool.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("finishing reviews: %w", err))
		}
	}
	return errors.Join(errs...)
}
