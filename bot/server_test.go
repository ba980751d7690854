package bot

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// stuckPool is a running pool whose queue reports it needs a restart.
type stuckPool struct {
	*Pool
	live error
}

func (p stuckPool) Live() error { return p.live }

// TestHealthzFailsWhenTheQueueSaysARestartIsDue: /healthz answers 200
// while the queue is live and 503 with the queue's reason once it is not,
// so that the kubelet restarts the container; /readyz is not what says it.
func TestHealthzFailsWhenTheQueueSaysARestartIsDue(t *testing.T) {
	pool := NewPool(func(context.Context, Job) error { return nil }, PoolOptions{Workers: 1, QueueSize: 1})
	pool.Start()
	defer pool.Shutdown(t.Context())
	p := stuckPool{Pool: pool}
	srv := NewServer(p, nil, nil)
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		b, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, string(b)
	}
	if code, body := get(); code != http.StatusOK {
		t.Fatalf("healthz of a live queue: %d %q", code, body)
	}
	p.live = errors.New("the queue has not been able to store jobs for 5m0s: JetStream is disabled")
	srv = NewServer(p, nil, nil)
	if code, body := get(); code != http.StatusServiceUnavailable || !strings.Contains(body, "JetStream is disabled") {
		t.Fatalf("healthz of a stuck queue: %d %q, want 503 with the reason", code, body)
	}
}
