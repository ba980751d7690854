package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prodready/prodready/bot"
)

// Example shows how a host adapter plugs in: the Reviewer runs every job on
// the Pool, the Server serves health, readiness and metrics, and each host
// registers its webhook route, whose handler verifies the delivery, builds
// a bot.Job with its own bot.Host and hands it to the Pool (an Enqueuer).
func Example() {
	logger := slog.Default()
	metrics := bot.NewMetrics()
	rv := bot.NewReviewer(bot.NewLRUCache(64<<20), logger)
	pool := bot.NewPool(rv.Run, bot.PoolOptions{Workers: 4, QueueSize: 100, Logger: logger, Metrics: metrics})
	srv := bot.NewServer(pool, metrics, logger)
	srv.Handle(http.MethodPost, "/webhooks/gitlab", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// verify the token, decode the event, then:
		var host bot.Host // the GitLab adapter
		err := pool.Enqueue(bot.Job{DeliveryID: r.Header.Get("X-Gitlab-Event-UUID"), Event: "merge_request.open", PR: bot.PullRequest{Host: "gitlab"}, Host: host})
		switch err {
		case nil:
			w.WriteHeader(http.StatusAccepted)
		case bot.ErrDuplicate:
			w.WriteHeader(http.StatusOK)
		default: // ErrQueueFull, ErrShuttingDown
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	pool.Start()
	srv.SetReady(true)
	// go srv.Serve(listener) … then on SIGTERM:
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fmt.Println(srv.Shutdown(ctx))
	// Output: <nil>
}
