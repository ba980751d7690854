package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/bot/jsqueue"
)

// queueFlags configure the durable queue: where JetStream is (embedded
// under --data-dir, or --nats-url) and the names and limits of its stream,
// consumer and buckets (docs/queue.md).
type queueFlags struct {
	dataDir, natsURL, natsListen string
	storeMax                     int64
	cfg                          jsqueue.Config
	workers                      int
}

func addQueueFlags(fs *pflag.FlagSet, f *queueFlags) {
	d := jsqueue.DefaultConfig
	fs.StringVar(&f.dataDir, "data-dir", "prodready-data", "directory of the embedded NATS server's JetStream files (an emptyDir or volume); unused with --nats-url")
	fs.StringVar(&f.natsURL, "nats-url", "", "NATS JetStream cluster to queue jobs in, e.g. nats://nats:4222 (comma-separated for several); empty: an embedded single-node server")
	fs.StringVar(&f.natsListen, "nats-listen", "", "also serve the embedded NATS server to clients on this address, e.g. 127.0.0.1:4222 for the nats CLI; empty: in-process only")
	fs.Int64Var(&f.storeMax, "nats-max-store", 1<<30, "bytes of disk the embedded server's JetStream may use")
	fs.IntVar(&f.cfg.Replicas, "nats-replicas", 0, "replicas of the stream, consumer and buckets; 0: 1 embedded, 3 with --nats-url")
	fs.StringVar(&f.cfg.Stream, "queue-stream", d.Stream, "work-queue stream of review jobs")
	fs.StringVar(&f.cfg.Subject, "queue-subject", d.Subject, "subject prefix of review jobs")
	fs.StringVar(&f.cfg.Consumer, "queue-consumer", d.Consumer, "durable consumer every replica pulls jobs from")
	fs.StringVar(&f.cfg.DeadStream, "queue-dead-stream", d.DeadStream, "stream keeping the jobs that failed for good")
	fs.StringVar(&f.cfg.DeadSubject, "queue-dead-subject", d.DeadSubject, "subject prefix of dead-lettered jobs")
	fs.StringVar(&f.cfg.LeaseBucket, "queue-lease-bucket", d.LeaseBucket, "key-value bucket of pull request leases")
	fs.StringVar(&f.cfg.RunBucket, "queue-run-bucket", d.RunBucket, "key-value bucket of the check run each job started")
	fs.StringVar(&f.cfg.ReviewedBucket, "queue-reviewed-bucket", d.ReviewedBucket, "key-value bucket of the reviews done and pending per pull request, which absorb deliveries that would repeat one")
	fs.DurationVar(&f.cfg.ReviewedTTL, "queue-reviewed-ttl", d.ReviewedTTL, "how long a completed review of a head is remembered; until then a delivery for the same head and base starts no review")
	fs.Int64Var(&f.cfg.MaxMsgs, "queue-size", d.MaxMsgs, "jobs the stream holds; beyond it (or --queue-max-bytes) deliveries get 503")
	fs.Int64Var(&f.cfg.MaxBytes, "queue-max-bytes", d.MaxBytes, "bytes the stream holds")
	fs.DurationVar(&f.cfg.MaxAge, "queue-max-age", d.MaxAge, "a job not done after this is dropped")
	fs.DurationVar(&f.cfg.DuplicateWindow, "queue-duplicate-window", d.DuplicateWindow, "how long a delivery id is remembered to drop redeliveries")
	fs.DurationVar(&f.cfg.DeadMaxAge, "queue-dead-max-age", d.DeadMaxAge, "how long dead-lettered jobs are kept")
	fs.DurationVar(&f.cfg.AckWait, "queue-ack-wait", d.AckWait, "a job whose replica is silent this long goes to another replica")
	fs.IntVar(&f.cfg.MaxAttempts, "queue-max-attempts", d.MaxAttempts, "deliveries of a failing job before its check run fails and it is dead-lettered")
	fs.Func("queue-backoff", "comma-separated waits before each retry of a failed job, the last repeating (default 10s,30s,1m,2m)", func(v string) error {
		b, err := parseBackoff(v)
		f.cfg.Backoff = b
		return err
	})
	fs.DurationVar(&f.cfg.LeaseTTL, "queue-lease-ttl", d.LeaseTTL, "a pull request's lease outlives its replica's last renewal by this")
	fs.DurationVar(&f.cfg.LeaseWait, "queue-lease-wait", d.LeaseWait, "how long a job waits for its pull request's lease before it is put back")
	fs.DurationVar(&f.cfg.ReviewTimeout, "queue-review-timeout", d.ReviewTimeout, "longest one attempt of a review may run before it fails and is retried")
	fs.DurationVar(&f.cfg.StaleAfter, "queue-stale-after", d.StaleAfter, "age past which the sweep completes, as timed out, a check run whose job is no longer queued; at least the review timeout")
	fs.DurationVar(&f.cfg.SweepEvery, "queue-sweep-every", d.SweepEvery, "how often each replica sweeps for stale check runs, besides once at start")
	bindEnv(fs, "data-dir", "PRODREADY_DATA_DIR", "nats-url", "PRODREADY_NATS_URL", "nats-listen", "PRODREADY_NATS_LISTEN", "nats-max-store", "PRODREADY_NATS_MAX_STORE", "nats-replicas", "PRODREADY_NATS_REPLICAS", "queue-stream", "PRODREADY_QUEUE_STREAM", "queue-subject", "PRODREADY_QUEUE_SUBJECT", "queue-consumer", "PRODREADY_QUEUE_CONSUMER", "queue-dead-stream", "PRODREADY_QUEUE_DEAD_STREAM", "queue-dead-subject", "PRODREADY_QUEUE_DEAD_SUBJECT", "queue-lease-bucket", "PRODREADY_QUEUE_LEASE_BUCKET", "queue-run-bucket", "PRODREADY_QUEUE_RUN_BUCKET", "queue-reviewed-bucket", "PRODREADY_QUEUE_REVIEWED_BUCKET", "queue-reviewed-ttl", "PRODREADY_QUEUE_REVIEWED_TTL", "queue-size", "PRODREADY_QUEUE_SIZE", "queue-max-bytes", "PRODREADY_QUEUE_MAX_BYTES", "queue-max-age", "PRODREADY_QUEUE_MAX_AGE", "queue-duplicate-window", "PRODREADY_QUEUE_DUPLICATE_WINDOW", "queue-dead-max-age", "PRODREADY_QUEUE_DEAD_MAX_AGE", "queue-ack-wait", "PRODREADY_QUEUE_ACK_WAIT", "queue-max-attempts", "PRODREADY_QUEUE_MAX_ATTEMPTS", "queue-lease-ttl", "PRODREADY_QUEUE_LEASE_TTL", "queue-lease-wait", "PRODREADY_QUEUE_LEASE_WAIT", "queue-review-timeout", "PRODREADY_QUEUE_REVIEW_TIMEOUT", "queue-stale-after", "PRODREADY_QUEUE_STALE_AFTER", "queue-sweep-every", "PRODREADY_QUEUE_SWEEP_EVERY", "queue-backoff", "PRODREADY_QUEUE_BACKOFF")
}

func parseBackoff(v string) ([]time.Duration, error) {
	var out []time.Duration
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("backoff %q is not a positive duration", s)
		}
		out = append(out, d)
	}
	return out, nil
}

// open connects to JetStream (starting the embedded server unless
// --nats-url is set) and returns the queue and what closes it all once the
// queue is shut down.
func (f *queueFlags) open(run func(context.Context, bot.Job) error, hostFor bot.HostFor, metrics *bot.Metrics, logger *slog.Logger) (bot.Queue, func(), error) {
	cfg := f.cfg
	cfg.Workers = f.workers
	var nc *nats.Conn
	var emb *jsqueue.Embedded
	name := "prodready serve"
	if h, err := os.Hostname(); err == nil {
		name += " " + h
	}
	switch {
	case f.natsURL != "":
		if cfg.Replicas == 0 {
			cfg.Replicas = 3
		}
		c, err := jsqueue.Connect(f.natsURL, name)
		if err != nil {
			return nil, nil, err
		}
		nc = c
	case f.dataDir == "":
		return nil, nil, errors.New("neither --nats-url nor --data-dir is set: the embedded NATS server needs a directory")
	default:
		if cfg.Replicas == 0 {
			cfg.Replicas = 1
		}
		e, err := jsqueue.StartEmbedded(f.dataDir, jsqueue.EmbeddedOptions{MaxStore: f.storeMax, Listen: f.natsListen, Logger: logger})
		if err != nil {
			return nil, nil, err
		}
		emb = e
		c, err := e.Connect(name)
		if err != nil {
			e.Shutdown()
			return nil, nil, err
		}
		nc = c
	}
	closeAll := func() {
		nc.Drain()
		for i := 0; i < 100 && !nc.IsClosed(); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		nc.Close()
		if emb != nil {
			emb.Shutdown()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q, err := jsqueue.New(ctx, nc, cfg, jsqueue.Options{Run: run, HostFor: hostFor, Logger: logger, Metrics: metrics, Embedded: emb})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	c := q.Config()
	where := "embedded, " + f.dataDir
	if f.natsURL != "" {
		where = f.natsURL
	}
	logger.Info("queue ready", "nats", where, "stream", c.Stream, "consumer", c.Consumer, "replicas", c.Replicas, "max_msgs", c.MaxMsgs, "max_bytes", c.MaxBytes, "duplicate_window", c.DuplicateWindow.String(), "ack_wait", c.AckWait.String(), "max_attempts", c.MaxAttempts)
	return q, closeAll, nil
}

// Health is the opened queue's health when it reports one
// (bot.HealthReporter: the durable queue), so that /readyz, which is given
// the queueRef, answers 503 while JetStream cannot store jobs.
func (r queueRef) Health() error {
	if hr, ok := r.Queue.(bot.HealthReporter); ok {
		return hr.Health()
	}
	return nil
}

// Live is the opened queue's liveness when it reports one
// (bot.LivenessReporter: the durable queue on the embedded server), so that
// /healthz, which is given the queueRef, answers 503 once JetStream has not
// come back by itself.
func (r queueRef) Live() error {
	if lr, ok := r.Queue.(bot.LivenessReporter); ok {
		return lr.Live()
	}
	return nil
}
