package jsqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/plural"
)

// Options are what New needs besides the connection and the Config.
type Options struct {
	// Run reviews one job (bot.Reviewer.Run); the job's Host is set.
	Run func(ctx context.Context, job bot.Job) error
	// HostFor returns the Host that acts for a job read from the stream.
	HostFor bot.HostFor
	// Logger receives the queue's lines (slog.Default when nil).
	Logger *slog.Logger
	// Metrics counts jobs and reviews (nil: not counted).
	Metrics *bot.Metrics
	// Owner names this replica in the leases it holds (host name and
	// process id when empty).
	Owner string
	// Embedded is the embedded server nc is connected to, if it is: its
	// JetStream's health is part of Health, whose checks restart its
	// JetStream when its store failed to write (nil: a remote cluster).
	Embedded *Embedded
}

// Queue is the durable bot.Queue. Enqueue stores a job in the stream and
// returns once JetStream acknowledged it; Start runs Config.Workers
// workers that take jobs from the shared consumer.
type Queue struct {
	cfg      Config
	opt      Options
	nc       *nats.Conn
	js       jetstream.JetStream
	consumer jetstream.Consumer
	leases   jetstream.KeyValue
	runs     jetstream.KeyValue
	reviewed jetstream.KeyValue // done and pending reviews (coalesce.go)
	stream   jetstream.Stream
	log      *slog.Logger

	started  atomic.Bool
	closing  atomic.Bool
	stop     chan struct{} // closed when Shutdown begins: workers take no new job
	stopOnce sync.Once
	runCtx   context.Context // cancelled when the grace period ends
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	depthMu   sync.Mutex
	depth     int
	depthTime time.Time

	health health
}

var _ bot.Queue = (*Queue)(nil)

// New creates (or updates to cfg) the stream, the dead-letter stream, the
// consumer and the buckets on nc's JetStream, and returns the queue; call
// Start to run its workers. Every replica calls New with the same Config.
func New(ctx context.Context, nc *nats.Conn, cfg Config, opt Options) (*Queue, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("queue configuration: %w", err)
	}
	if opt.Run == nil || opt.HostFor == nil {
		return nil, errors.New("queue: Run and HostFor are required")
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Owner == "" {
		h, _ := os.Hostname()
		opt.Owner = h + "/" + strconv.Itoa(os.Getpid())
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("opening JetStream: %w", err)
	}
	q := &Queue{cfg: cfg, opt: opt, nc: nc, js: js, log: opt.Logger, stop: make(chan struct{})}
	q.runCtx, q.cancel = context.WithCancel(context.Background())
	// Replicas starting together race to create the same objects, and a
	// JetStream cluster leaves some management requests unanswered (an
	// update that reaches a stream while its leader is elected, creates of
	// one stream from several clients at once): each attempt is bounded,
	// and a conflict or a request nobody answered is made again.
	attempt := 1
	for ; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, setupAttemptTimeout(ctx))
		err = q.setup(actx)
		cancel()
		if err == nil || attempt == maxSetupAttempts || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, plural.Count(attempt, "attempt", "attempts"))
	}
	return q, nil
}

// maxSetupAttempts bounds the attempts New makes at creating the queue's
// objects.
const maxSetupAttempts = 8

// setupAttemptTimeout bounds one of New's attempts: 5s, or a third of
// what is left of ctx when that is less (but not under half a second), so
// that a request JetStream never answered leaves time for more attempts
// within the caller's deadline.
func setupAttemptTimeout(ctx context.Context) time.Duration {
	d := 5 * time.Second
	if deadline, ok := ctx.Deadline(); ok {
		d = min(d, max(time.Until(deadline)/3, 500*time.Millisecond))
	}
	return d
}

func (q *Queue) setup(ctx context.Context) error {
	c := q.cfg
	var err error
	q.stream, err = q.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        c.Stream,
		Description: "prodready review jobs, one per verified webhook delivery",
		Subjects:    []string{c.Subject + ".>"},
		Retention:   jetstream.WorkQueuePolicy,
		Discard:     jetstream.DiscardNew,
		Storage:     jetstream.FileStorage,
		Replicas:    c.Replicas,
		MaxAge:      c.MaxAge,
		MaxMsgs:     c.MaxMsgs,
		MaxBytes:    c.MaxBytes,
		MaxMsgSize:  MaxJobBytes,
		Duplicates:  c.DuplicateWindow,
	})
	if err != nil {
		return fmt.Errorf("creating stream %s: %w", c.Stream, err)
	}
	_, err = q.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        c.DeadStream,
		Description: "prodready review jobs that failed for good, kept for inspection",
		Subjects:    []string{c.DeadSubject + ".>"},
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardOld,
		Storage:     jetstream.FileStorage,
		Replicas:    c.Replicas,
		MaxAge:      c.DeadMaxAge,
		MaxMsgs:     c.MaxMsgs,
		MaxBytes:    c.MaxBytes,
		MaxMsgSize:  MaxJobBytes + 4096,
		Duplicates:  min(c.DuplicateWindow, c.DeadMaxAge),
	})
	if err != nil {
		return fmt.Errorf("creating dead-letter stream %s: %w", c.DeadStream, err)
	}
	q.consumer, err = q.js.CreateOrUpdateConsumer(ctx, c.Stream, jetstream.ConsumerConfig{
		Durable:       c.Consumer,
		Description:   "prodready reviewers: every replica pulls from it",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.AckWait,
		MaxDeliver:    -1, // bounded by the workers: see handle
		MaxAckPending: c.MaxAckPending,
		Replicas:      c.Replicas,
	})
	if err != nil {
		return fmt.Errorf("creating consumer %s: %w", c.Consumer, err)
	}
	q.leases, err = q.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      c.LeaseBucket,
		Description: "prodready pull request leases: one review of a pull request at a time",
		History:     1,
		TTL:         c.LeaseTTL,
		Storage:     jetstream.FileStorage,
		Replicas:    c.Replicas,
	})
	if err != nil {
		return fmt.Errorf("creating bucket %s: %w", c.LeaseBucket, err)
	}
	q.runs, err = q.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      c.RunBucket,
		Description: "prodready check runs by job, so that a retry completes the run it started and the sweep the run of a lost job",
		History:     1,
		// Past the job's own life (it may leave the stream at MaxAge
		// unfinished), long enough for the sweep to see it stale.
		TTL:      c.MaxAge + c.StaleAfter + 2*c.SweepEvery,
		Storage:  jetstream.FileStorage,
		Replicas: c.Replicas,
	})
	if err != nil {
		return fmt.Errorf("creating bucket %s: %w", c.RunBucket, err)
	}
	q.reviewed, err = q.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      c.ReviewedBucket,
		Description: "prodready reviews done and pending by pull request, so that a delivery that would only repeat one is absorbed",
		History:     1,
		TTL:         c.ReviewedTTL,
		Storage:     jetstream.FileStorage,
		Replicas:    c.Replicas,
	})
	if err != nil {
		return fmt.Errorf("creating bucket %s: %w", c.ReviewedBucket, err)
	}
	return nil
}

// Config is the queue's configuration, defaults filled in.
func (q *Queue) Config() Config { return q.cfg }

// publishTimeout bounds storing one job (a webhook is answered within it).
const publishTimeout = 5 * time.Second

// Enqueue stores job in the stream. It returns a *bot.CoalescedError for
// a review that would only repeat one done or pending (coalesce.go),
// bot.ErrDuplicate for a delivery id the stream saw within the duplicate
// window, bot.ErrShuttingDown once Shutdown began, and when the job is not
// stored an error wrapping why: bot.ErrQueueFull (the stream's own limits),
// bot.ErrStorageFull (the disk or JetStream's storage is full) or
// bot.ErrQueueUnavailable (JetStream not answering or unable to write).
// The webhook answers 503 naming the reason. While the last health check
// (Health) failed, Enqueue answers its error at once instead of waiting
// for a publish that gets no answer.
func (q *Queue) Enqueue(job bot.Job) error {
	if q.closing.Load() {
		return bot.ErrShuttingDown
	}
	if err := q.Health(); err != nil {
		return fmt.Errorf("stream %s cannot take the job: %w", q.cfg.Stream, err)
	}
	data, err := encodeJob(job, time.Now())
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	if coalescible(job) {
		if reason, ok := q.absorbAtIntake(ctx, job); ok {
			return &bot.CoalescedError{Reason: reason}
		}
	}
	subject := q.cfg.Subject + "." + token(job.PR.Host)
	ack, err := q.js.Publish(ctx, subject, data, jetstream.WithMsgID(msgID(job)), jetstream.WithExpectStream(q.cfg.Stream))
	// The same delivery arriving at two replicas at once: the stream is
	// storing the other copy. Ask again until it says whether it kept it
	// (a duplicate then) or not.
	for err != nil && duplicateInFlight(err) && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
		ack, err = q.js.Publish(ctx, subject, data, jetstream.WithMsgID(msgID(job)), jetstream.WithExpectStream(q.cfg.Stream))
	}
	if err != nil {
		err = classify(err)
		if errors.Is(err, bot.ErrQueueUnavailable) {
			// No answer: the health check says why when it can (a
			// stream that failed to write answers no publish).
			if cause := q.check(); cause != nil {
				err = cause
			}
		}
		return fmt.Errorf("stream %s refused the job: %w", q.cfg.Stream, err)
	}
	if ack.Duplicate {
		return bot.ErrDuplicate
	}
	if coalescible(job) {
		q.markPending(ctx, job, ack.Sequence)
	}
	return nil
}

// duplicateInFlight reports whether a publish was refused because a
// message with the same id is being stored (JetStream's error 10158).
func duplicateInFlight(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jsErrDuplicateInFlight
}

// jsErrDuplicateInFlight is JetStream's "duplicate message id is in
// process" (nats-server's JSStreamDuplicateMessageConflict), which nats.go
// names no constant for.
const jsErrDuplicateInFlight jetstream.ErrorCode = 10158

// Start starts the workers (once).
func (q *Queue) Start() {
	if q.started.Swap(true) {
		return
	}
	for range q.cfg.Workers {
		q.wg.Add(1)
		go q.work()
	}
	q.wg.Add(1)
	go q.sweepEvery()
	q.wg.Add(1)
	go q.watchHealth()
}

// Running reports whether the workers run, the queue is not shutting down
// and the connection to NATS is up.
func (q *Queue) Running() bool {
	return q.started.Load() && !q.closing.Load() && q.nc.IsConnected()
}

// Depth is the number of jobs not yet delivered to any replica, read from
// the consumer at most once a second.
func (q *Queue) Depth() int {
	q.depthMu.Lock()
	defer q.depthMu.Unlock()
	if time.Since(q.depthTime) < time.Second {
		return q.depth
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if info, err := q.consumer.Info(ctx); err == nil {
		q.depth = int(info.NumPending)
	}
	q.depthTime = time.Now()
	return q.depth
}

// Shutdown stops taking jobs (Enqueue answers bot.ErrShuttingDown, no
// worker takes another) and lets running reviews finish until ctx ends.
// Then their context is cancelled: each is put back in the stream for
// another replica, its check run left in progress for that one to finish.
// Jobs not taken stay in the stream. It returns ctx's error when the
// grace period ended first.
func (q *Queue) Shutdown(ctx context.Context) error {
	q.closing.Store(true)
	q.stopOnce.Do(func() { close(q.stop) })
	finished := make(chan struct{})
	go func() { q.wg.Wait(); close(finished) }()
	select {
	case <-finished:
		q.cancel()
		return nil
	case <-ctx.Done():
	}
	q.cancel()
	<-finished
	return ctx.Err()
}

// fetchWait bounds one wait for a job, so a worker notices Shutdown.
const fetchWait = time.Second

func (q *Queue) work() {
	defer q.wg.Done()
	for {
		select {
		case <-q.stop:
			return
		default:
		}
		msg, err := q.consumer.Next(jetstream.FetchMaxWait(fetchWait))
		if err != nil {
			if !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
				select {
				case <-q.stop:
					return
				case <-time.After(fetchWait):
				}
			}
			continue
		}
		select {
		case <-q.stop:
			// Taken as Shutdown began: back to the stream at once.
			msg.Nak()
			return
		default:
		}
		q.handle(msg)
	}
}

// handle runs one delivery of a job and acknowledges, retries or
// dead-letters it.
func (q *Queue) handle(msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		q.log.Error("job without JetStream metadata dropped", "err", err.Error())
		msg.Term()
		return
	}
	attempt := int(meta.NumDelivered)
	job, queued, err := decodeJob(msg.Data())
	if err != nil {
		q.deadLetter(msg, bot.Job{}, attempt, "unreadable job: "+err.Error())
		return
	}
	log := bot.JobLogger(q.log, job).With("attempt", attempt, "stream_seq", meta.Sequence.Stream)
	host, err := q.opt.HostFor(job)
	if err != nil {
		err = fmt.Errorf("acting for the job: %w", err)
	} else {
		job.Host = host
	}

	// Word to JetStream that the job is being worked on, until it is
	// acknowledged, retried or put back.
	beatCtx, stopBeat := context.WithCancel(context.Background())
	defer stopBeat()
	beat := func() { msg.InProgress() }
	go func() {
		t := time.NewTicker(q.cfg.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-beatCtx.Done():
				return
			case <-t.C:
				beat()
			}
		}
	}()

	if attempt > q.cfg.MaxAttempts {
		// The last attempt's replica stopped before it ended the job.
		q.giveUp(msg, job, attempt, fmt.Sprintf("the review did not finish in %d attempts (the replicas running it stopped)", q.cfg.MaxAttempts), log)
		return
	}
	if err != nil {
		q.failed(msg, job, attempt, err, log)
		return
	}

	// One review of a pull request at a time, across replicas.
	lctx, cancelWait := context.WithTimeout(q.runCtx, q.cfg.LeaseWait)
	l, err := acquireLease(lctx, q.leases, leaseKey(job), []byte(q.opt.Owner+" "+msgID(job)), q.cfg.LeaseTTL, beat)
	cancelWait()
	if err != nil {
		if q.runCtx.Err() != nil {
			q.interrupted(msg, log)
			return
		}
		log.Info("pull request busy: the job waits its turn", "err", err.Error())
		msg.NakWithDelay(q.cfg.backoff(attempt))
		q.opt.Metrics.Job("retry")
		return
	}
	timedCtx, cancelTimeout := context.WithTimeoutCause(q.runCtx, q.cfg.ReviewTimeout, fmt.Errorf("the review ran longer than %s", q.cfg.ReviewTimeout))
	defer cancelTimeout()
	runCtx, cancelRun := context.WithCancelCause(timedCtx)
	defer cancelRun(nil)
	keepCtx, stopKeep := context.WithCancel(runCtx)
	go l.keep(keepCtx, func(err error) {
		log.Warn("lease lost: the review stops", "err", err.Error())
		cancelRun(err)
	})
	defer func() {
		stopKeep()
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := l.release(rctx); err != nil {
			log.Warn("lease not released: it expires by itself", "err", err.Error())
		}
	}()

	g := &guardedHost{Host: job.Host, runs: q.runs, key: runKey(msgID(job)), lease: l,
		final: attempt >= q.cfg.MaxAttempts, ending: func() bool { return q.runCtx.Err() != nil }, log: log,
		seq: meta.Sequence.Stream, job: msg.Data(), metrics: q.opt.Metrics}

	if job.Fix != nil {
		// A request to commit fixes runs on the host itself, holding the
		// pull request's lease: the Applier checks the head it was made at
		// and answers in the pressed check run or the note's thread.
		log.Info("fix request started", "replica", q.opt.Owner)
		err = q.safeRun(runCtx, job, log)
		switch {
		case err == nil:
			q.ack(msg, log, "done")
		case q.runCtx.Err() != nil:
			q.interrupted(msg, log)
		default:
			q.failed(msg, job, attempt, err, log)
		}
		return
	}

	// A job asking for the review its pull request had last is not
	// reviewed again: no API call, no check run.
	if d, ok := q.alreadyReviewed(runCtx, job); ok {
		log.Info("delivery absorbed: this head was reviewed against this base already", "head", job.PR.HeadSHA, "base", d.Base, "config", d.Config, "reviewed", d.Reviewed, "reviewed_delivery", d.Delivery, "reason", bot.CoalescedReviewed)
		q.opt.Metrics.Coalesced(job.PR.Host, bot.CoalescedReviewed)
		q.forgetRun(job, log)
		q.ack(msg, log, "coalesced")
		return
	}

	// A job whose pull request moved on before it started is not reviewed.
	if hc, ok := job.Host.(bot.HeadChecker); ok && job.PR.HeadSHA != "" && job.PR.Number != 0 {
		head, err := hc.HeadSHA(runCtx, job.PR)
		if err == nil && head != "" && head != job.PR.HeadSHA {
			if rec, ok := g.record(runCtx); ok && rec.ID != 0 {
				if err := hc.Supersede(runCtx, job.PR, bot.ReviewHandle{ID: rec.ID}, head); err != nil {
					q.failed(msg, job, attempt, err, log)
					return
				}
			}
			log.Info("review skipped: the pull request's head moved on", "head", head, "queued", queued)
			q.forgetRun(job, log)
			q.clearPending(job, log)
			q.ack(msg, log, "superseded")
			return
		}
	}

	job.Host = g
	log.Info("review started", "replica", q.opt.Owner)
	start := time.Now()
	err = q.safeRun(runCtx, job, log)
	q.opt.Metrics.Review(time.Since(start), err)
	switch {
	case err == nil && g.superseded != "":
		q.forgetRun(job, log)
		q.clearPending(job, log)
		q.ack(msg, log, "superseded")
	case err == nil:
		q.forgetRun(job, log)
		if g.published {
			// Before the pending record goes, so that a delivery for the
			// head always finds one or the other.
			q.recordReviewed(job, g.config, log)
		}
		q.clearPending(job, log)
		q.ack(msg, log, "done")
	case q.runCtx.Err() != nil:
		q.interrupted(msg, log)
	case errors.Is(context.Cause(runCtx), errLeaseLost), errors.Is(err, errLeaseLost):
		// Another replica holds the pull request now; this attempt
		// published nothing.
		log.Warn("review abandoned: lease lost", "err", err.Error())
		msg.NakWithDelay(q.cfg.backoff(attempt))
		q.opt.Metrics.Job("retry")
	default:
		q.failed(msg, job, attempt, err, log)
	}
}

// safeRun is Run with a panic turned into an error.
func (q *Queue) safeRun(ctx context.Context, job bot.Job, log *slog.Logger) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("review panicked", "panic", r)
			err = errors.New("review panicked")
		}
	}()
	return q.opt.Run(ctx, job)
}

// ack acknowledges a finished job, waiting for JetStream to confirm.
func (q *Queue) ack(msg jetstream.Msg, log *slog.Logger, result string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := msg.DoubleAck(ctx); err != nil {
		// The job is delivered again; its review finds its comments posted.
		log.Warn("job done but its acknowledgement was not confirmed", "err", err.Error())
	}
	q.opt.Metrics.Job(result)
}

// interrupted puts a job whose review the shutdown stopped back at once.
func (q *Queue) interrupted(msg jetstream.Msg, log *slog.Logger) {
	log.Warn("review interrupted by the shutdown: back in the stream for another replica")
	msg.Nak()
	q.opt.Metrics.Job("interrupted")
}

// failed retries a failed job after its backoff, or gives up after the
// last attempt (its check run was failed by the review itself).
func (q *Queue) failed(msg jetstream.Msg, job bot.Job, attempt int, err error, log *slog.Logger) {
	if attempt < q.cfg.MaxAttempts {
		wait := q.cfg.backoff(attempt)
		log.Warn("review failed: retried after a backoff", "err", err.Error(), "retry_in", wait.String())
		msg.NakWithDelay(wait)
		q.opt.Metrics.Job("retry")
		return
	}
	q.deadLetter(msg, job, attempt, err.Error())
}

// giveUp ends the check run of a job whose attempts ran out without a
// result, then dead-letters it.
func (q *Queue) giveUp(msg jetstream.Msg, job bot.Job, attempt int, reason string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if job.Host != nil && job.Fix != nil {
		log.Error("fix request given up: nothing committed", "reason", reason)
	} else if job.Host != nil {
		h := bot.ReviewHandle{}
		if rec, ok := lookupRun(ctx, q.runs, runKey(msgID(job)), log); ok && rec.ID != 0 {
			h.ID = rec.ID
		} else if started, err := job.Host.StartReview(ctx, job.PR); err == nil {
			h = started // so that the failure is seen on the pull request
		}
		if err := job.Host.Fail(ctx, job.PR, h, "prodready could not finish this review: "+reason+". Re-run this check to review again."); err != nil {
			log.Warn("cannot end the check run of a job given up", "err", err.Error())
		}
	}
	q.deadLetter(msg, job, attempt, reason)
}

// deadLetter keeps the job in the dead-letter stream with why, then
// removes it from the work queue. When the dead-letter stream refuses it,
// the job stays and is delivered again.
func (q *Queue) deadLetter(msg jetstream.Msg, job bot.Job, attempt int, reason string) {
	log := bot.JobLogger(q.log, job)
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	out := nats.NewMsg(q.cfg.DeadSubject + "." + token(job.PR.Host))
	if job.PR.Host == "" {
		out.Subject = q.cfg.DeadSubject + ".unknown"
	}
	out.Data = msg.Data()
	out.Header.Set("Prodready-Reason", bot.Truncate(reason, 1000))
	out.Header.Set("Prodready-Attempts", strconv.Itoa(attempt))
	if meta, err := msg.Metadata(); err == nil {
		out.Header.Set("Prodready-Stream-Seq", strconv.FormatUint(meta.Sequence.Stream, 10))
	}
	if _, err := q.js.PublishMsg(ctx, out, jetstream.WithMsgID(msgID(job)+"/dead")); err != nil {
		log.Error("cannot dead-letter a failed job: it is delivered again", "err", err.Error())
		msg.NakWithDelay(q.cfg.backoff(attempt))
		return
	}
	q.forgetRun(job, log)
	q.clearPending(job, log)
	log.Error("review failed for good: job kept in the dead-letter stream", "stream", q.cfg.DeadStream, "reason", reason, "attempts", attempt)
	if err := msg.DoubleAck(ctx); err != nil {
		log.Warn("dead-lettered job's acknowledgement not confirmed", "err", err.Error())
	}
	q.opt.Metrics.Job("dead")
}
