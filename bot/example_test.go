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
// registers its webhook route: a bot.Webhook with the host's Intake, which
// verifies the delivery and builds each bot.Job with the host's bot.Host;
// the Webhook hands the jobs to the Pool (an Enqueuer) and answers.
func Example() {
	logger := slog.Default()
	metrics := bot.NewMetrics()
	rv := bot.NewReviewer(bot.NewLRUCache(64<<20), logger)
	pool := bot.NewPool(rv.Run, bot.PoolOptions{Workers: 4, QueueSize: 100, Logger: logger, Metrics: metrics})
	srv := bot.NewServer(pool, metrics, logger)
	var intake bot.Intake // the host adapter's, e.g. gitlab.Intake{API: host}
	srv.Handle(http.MethodPost, "/webhooks/gitlab", &bot.Webhook{Intake: intake, Secret: []byte("from a file"), Queue: pool, Metrics: metrics, Logger: logger})
	pool.Start()
	srv.SetReady(true)
	// go srv.Serve(listener) … then on SIGTERM:
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fmt.Println(srv.Shutdown(ctx))
	// Output: <nil>
}
