// Package jsqueue is the durable review queue on NATS JetStream: a
// bot.Queue whose jobs survive a restart and are shared by every replica.
// A verified delivery is stored in a work-queue stream before the webhook
// is answered, deduplicated by its delivery id (Nats-Msg-Id); a durable
// pull consumer hands each job to one replica, which holds the pull
// request's lease in a key-value bucket while it reviews, acknowledges the
// job only once the review is published, and retries a failed one with
// backoff a bounded number of times before it ends its check run failed
// and keeps the job in a dead-letter stream. A replica that dies leaves
// its job unacknowledged: another gets it after the ack wait.
package jsqueue

import (
	"errors"
	"fmt"
	"time"
)

// Config names the queue's JetStream objects and sets their limits. The
// zero value of a field means its default (DefaultConfig); docs/queue.md
// lists them.
type Config struct {
	// Stream is the work-queue stream jobs are stored in
	// ("PRODREADY_REVIEWS"); it holds the subjects Subject.>.
	Stream string
	// Subject is the jobs' subject prefix ("prodready.reviews"): a job of
	// host github is published on prodready.reviews.github.
	Subject string
	// Consumer is the durable pull consumer every replica reads jobs from
	// ("prodready-reviewers").
	Consumer string
	// DeadStream keeps the jobs that failed for good ("PRODREADY_DEAD"),
	// on DeadSubject.> ("prodready.dead").
	DeadStream, DeadSubject string
	// LeaseBucket is the key-value bucket of pull request leases
	// ("prodready-leases"); RunBucket records the check run each job
	// started, so that a retry or another replica completes that one
	// ("prodready-runs").
	LeaseBucket, RunBucket string
	// ReviewedBucket holds, per pull request, the review completed last
	// (its head, base and config hash) and the job queued or running for
	// it, so that a delivery that would only repeat one is absorbed
	// ("prodready-reviewed").
	ReviewedBucket string
	// ReviewedTTL is how long a completed review is remembered (7 days):
	// after it, a delivery for the same head reviews it again.
	ReviewedTTL time.Duration

	// Replicas is the stream's, consumer's and buckets' replica count (1
	// for the embedded server; 3 on a 3-node cluster).
	Replicas int
	// MaxAge drops a job not done after it (72h); MaxMsgs and MaxBytes cap
	// the stream (100000 jobs, 256 MiB). A full stream refuses new jobs
	// (answered 503: the host delivers again), never drops stored ones.
	MaxAge   time.Duration
	MaxMsgs  int64
	MaxBytes int64
	// DuplicateWindow is how long a delivery id is remembered to drop a
	// redelivery (24h, at most MaxAge).
	DuplicateWindow time.Duration
	// DeadMaxAge is how long the dead-letter stream keeps a job (14 days).
	DeadMaxAge time.Duration

	// AckWait is how long a job may go without word from its replica (it
	// sends progress every AckWait/3 while it works) before the job is
	// delivered to another (60s).
	AckWait time.Duration
	// MaxAttempts bounds the deliveries of one job (5): after the last,
	// its check run fails with the reason and the job goes to DeadStream.
	MaxAttempts int
	// Backoff is the wait before each retry of a failed job (10s, 30s,
	// 1m, 2m); the last value repeats.
	Backoff []time.Duration
	// MaxAckPending bounds the jobs being worked on across all replicas
	// at once (1000).
	MaxAckPending int

	// LeaseTTL is how long a pull request's lease outlives its holder's
	// last renewal (60s); it is renewed every LeaseTTL/3.
	LeaseTTL time.Duration
	// LeaseWait bounds how long a job waits for the lease of its pull
	// request before it is put back with a backoff (15m).
	LeaseWait time.Duration
	// Workers is the number of reviews this replica runs at once (4).
	Workers int

	// ReviewTimeout bounds one attempt of a review (30m): then it fails
	// and is retried like any failure.
	ReviewTimeout time.Duration
	// StaleAfter is the age past which a check run recorded in RunBucket
	// whose job is no longer in the stream is completed by the sweep as
	// timed out (1h, at least ReviewTimeout); SweepEvery is how often
	// each replica sweeps, besides once at start (10m).
	StaleAfter, SweepEvery time.Duration
}

// DefaultConfig is the configuration a zero Config stands for.
var DefaultConfig = Config{
	Stream:          "PRODREADY_REVIEWS",
	Subject:         "prodready.reviews",
	Consumer:        "prodready-reviewers",
	DeadStream:      "PRODREADY_DEAD",
	DeadSubject:     "prodready.dead",
	LeaseBucket:     "prodready-leases",
	RunBucket:       "prodready-runs",
	ReviewedBucket:  "prodready-reviewed",
	ReviewedTTL:     7 * 24 * time.Hour,
	Replicas:        1,
	MaxAge:          72 * time.Hour,
	MaxMsgs:         100000,
	MaxBytes:        256 << 20,
	DuplicateWindow: 24 * time.Hour,
	DeadMaxAge:      14 * 24 * time.Hour,
	AckWait:         60 * time.Second,
	MaxAttempts:     5,
	Backoff:         []time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute},
	MaxAckPending:   1000,
	LeaseTTL:        60 * time.Second,
	LeaseWait:       15 * time.Minute,
	Workers:         4,
	ReviewTimeout:   30 * time.Minute,
	StaleAfter:      time.Hour,
	SweepEvery:      10 * time.Minute,
}

// MaxJobBytes is the largest job message: a job holds a pull request's
// identity, never a webhook body.
const MaxJobBytes = 64 << 10

// withDefaults fills zero fields from DefaultConfig and checks the result.
func (c Config) withDefaults() (Config, error) {
	d := DefaultConfig
	str := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	str(&c.Stream, d.Stream)
	str(&c.Subject, d.Subject)
	str(&c.Consumer, d.Consumer)
	str(&c.DeadStream, d.DeadStream)
	str(&c.DeadSubject, d.DeadSubject)
	str(&c.LeaseBucket, d.LeaseBucket)
	str(&c.RunBucket, d.RunBucket)
	str(&c.ReviewedBucket, d.ReviewedBucket)
	dur := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	dur(&c.MaxAge, d.MaxAge)
	dur(&c.DuplicateWindow, d.DuplicateWindow)
	dur(&c.DeadMaxAge, d.DeadMaxAge)
	dur(&c.AckWait, d.AckWait)
	dur(&c.LeaseTTL, d.LeaseTTL)
	dur(&c.LeaseWait, d.LeaseWait)
	dur(&c.ReviewTimeout, d.ReviewTimeout)
	dur(&c.StaleAfter, d.StaleAfter)
	dur(&c.SweepEvery, d.SweepEvery)
	dur(&c.ReviewedTTL, d.ReviewedTTL)
	num := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	num(&c.Replicas, d.Replicas)
	num(&c.MaxAttempts, d.MaxAttempts)
	num(&c.MaxAckPending, d.MaxAckPending)
	num(&c.Workers, d.Workers)
	if c.MaxMsgs <= 0 {
		c.MaxMsgs = d.MaxMsgs
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = d.MaxBytes
	}
	if len(c.Backoff) == 0 {
		c.Backoff = d.Backoff
	}
	var errs []error
	if c.DuplicateWindow > c.MaxAge {
		errs = append(errs, fmt.Errorf("the duplicate window (%s) is longer than the stream's max age (%s)", c.DuplicateWindow, c.MaxAge))
	}
	if c.StaleAfter < c.ReviewTimeout {
		errs = append(errs, fmt.Errorf("stale after %s is shorter than the review timeout %s: running reviews would be ended", c.StaleAfter, c.ReviewTimeout))
	}
	if c.Replicas > 5 {
		errs = append(errs, fmt.Errorf("%d replicas: JetStream allows at most 5", c.Replicas))
	}
	if c.MaxBytes < MaxJobBytes {
		errs = append(errs, fmt.Errorf("the stream's max bytes (%d) hold no job of %d bytes", c.MaxBytes, MaxJobBytes))
	}
	if c.Subject == c.DeadSubject {
		errs = append(errs, errors.New("the job and dead-letter subjects are the same"))
	}
	for _, b := range c.Backoff {
		if b <= 0 {
			errs = append(errs, fmt.Errorf("backoff %s is not positive", b))
		}
	}
	return c, errors.Join(errs...)
}

// backoff is the wait before the retry that follows attempt (1-based).
func (c Config) backoff(attempt int) time.Duration {
	i := min(max(attempt-1, 0), len(c.Backoff)-1)
	return c.Backoff[i]
}
