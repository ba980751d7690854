package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// DefaultRememberedDeliveries is how many completed delivery ids a Pool
// remembers to refuse duplicates.
const DefaultRememberedDeliveries = 10000

// Queue is what the Server runs jobs through: an Enqueuer that starts,
// tells readiness and depth, and shuts down. Pool is the in-memory one;
// package jsqueue's is durable, on NATS JetStream, shared by replicas.
type Queue interface {
	Enqueuer
	// Start starts the workers (once).
	Start()
	// Running reports whether the workers are started and not shutting
	// down (readiness).
	Running() bool
	// Depth is how many jobs wait for a worker.
	Depth() int
	// Shutdown stops taking jobs and gives running ones until ctx ends.
	Shutdown(ctx context.Context) error
}

var _ Queue = (*Pool)(nil)

// Pool is the bounded worker pool: an Enqueuer whose jobs run on a fixed
// number of workers. It never blocks a webhook handler: a full queue is
// ErrQueueFull, a delivery id already queued, running or completed is
// ErrDuplicate, and a delivery that failed may be delivered again. Reviews
// of one pull request run one at a time, and a queued review is skipped
// when a newer delivery for the same pull request arrived after it.
type Pool struct {
	run     func(ctx context.Context, job Job) error
	workers int
	queue   chan queued
	logger  *slog.Logger
	metrics *Metrics

	mu       sync.Mutex
	closed   bool
	started  bool
	active   map[string]bool // queued or running delivery ids
	done     map[string]bool // completed delivery ids
	doneRing []string        // completion order, to forget the oldest
	doneNext int
	prLocks  map[string]*prLock // reviews of one pull request run one at a time
	seq      uint64
	latest   map[string]uint64 // pull request -> sequence number of its last queued job

	ctx    context.Context // cancelled when the grace period ends
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// PoolOptions configure NewPool.
type PoolOptions struct {
	// Workers is the number of reviews that run at once (at least 1).
	Workers int
	// QueueSize is how many jobs may wait (at least 1).
	QueueSize int
	// Remember is how many completed delivery ids are remembered
	// (DefaultRememberedDeliveries when 0).
	Remember int
	Logger   *slog.Logger
	Metrics  *Metrics
}

// NewPool returns a pool that runs run for every job; call Start.
func NewPool(run func(ctx context.Context, job Job) error, o PoolOptions) *Pool {
	if o.Workers < 1 {
		o.Workers = 1
	}
	if o.QueueSize < 1 {
		o.QueueSize = 1
	}
	if o.Remember < 1 {
		o.Remember = DefaultRememberedDeliveries
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{
		run: run, workers: o.Workers, queue: make(chan queued, o.QueueSize),
		logger: o.Logger, metrics: o.Metrics,
		active: map[string]bool{}, done: map[string]bool{}, doneRing: make([]string, o.Remember), prLocks: map[string]*prLock{}, latest: map[string]uint64{},
		ctx: ctx, cancel: cancel,
	}
}

// Start starts the workers (once).
func (p *Pool) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		return
	}
	p.started = true
	for i := 0; i < p.workers; i++ {
		p.wg.Add(1)
		go p.work()
	}
}

// Running reports whether the workers are started and the pool is not
// shutting down (readiness).
func (p *Pool) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started && !p.closed
}

// Depth returns how many jobs wait in the queue.
func (p *Pool) Depth() int { return len(p.queue) }

// ErrShuttingDown is what Enqueue returns once Shutdown has begun; answer
// 503 so the host delivers again later.
var ErrShuttingDown = errors.New("server is shutting down")

// Enqueue queues job without blocking.
func (p *Pool) Enqueue(job Job) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrShuttingDown
	}
	id := job.DeliveryID
	if id != "" && (p.active[id] || p.done[id]) {
		return ErrDuplicate
	}
	p.seq++
	select {
	case p.queue <- queued{job: job, seq: p.seq}:
	default:
		return ErrQueueFull
	}
	if len(p.latest) > maxLatest {
		p.latest = map[string]uint64{} // forget old pull requests; at worst a stale review runs
	}
	if job.Fix == nil { // a fix request neither supersedes a review nor is superseded
		p.latest[prKey(job.PR)] = p.seq
	}
	if id != "" {
		p.active[id] = true
	}
	return nil
}

func (p *Pool) work() {
	defer p.wg.Done()
	for q := range p.queue {
		job := q.job
		if p.ctx.Err() != nil {
			JobLogger(p.logger, job).Error("review not run: the shutdown grace period ended before it started; redeliver the webhook to run it")
			p.forget(job.DeliveryID)
			continue
		}
		p.runOne(q)
	}
}

// queued is a job with its place in the order of arrival.
type queued struct {
	job Job
	seq uint64
}

// maxLatest bounds the pull requests whose last job is remembered.
const maxLatest = 50000

// prLock serialises the reviews of one pull request, so that two quick
// pushes never post (or deduplicate) at the same time.
type prLock struct {
	mu   sync.Mutex
	refs int
}

// prKey identifies a pull request across hosts.
func prKey(pr PullRequest) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d", pr.Host, pr.Repo, pr.RepoID, pr.Number)
}

func (p *Pool) lockPR(pr PullRequest) func() {
	key := prKey(pr)
	p.mu.Lock()
	l := p.prLocks[key]
	if l == nil {
		l = &prLock{}
		p.prLocks[key] = l
	}
	l.refs++
	p.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		p.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(p.prLocks, key)
		}
		p.mu.Unlock()
	}
}

func (p *Pool) runOne(q queued) {
	job := q.job
	unlock := p.lockPR(job.PR)
	defer unlock()
	p.mu.Lock()
	superseded := job.Fix == nil && q.seq < p.latest[prKey(job.PR)] && job.PR.HeadSHA != "" && job.PR.Number != 0
	p.mu.Unlock()
	if superseded {
		// A newer delivery for this pull request is queued or ran: reviewing
		// this older state would only add noise.
		JobLogger(p.logger, job).Info("review skipped: superseded by a newer delivery for the same pull request")
		p.finish(job.DeliveryID, nil)
		return
	}
	start := time.Now()
	err := p.safeRun(job)
	p.metrics.Review(time.Since(start), err)
	p.finish(job.DeliveryID, err)
}

// finish records a delivery as completed, or forgets it after an error so
// that it may be delivered again.
func (p *Pool) finish(id string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id == "" {
		return
	}
	delete(p.active, id)
	if err != nil {
		return // a failed delivery may be redelivered
	}
	if old := p.doneRing[p.doneNext]; old != "" {
		delete(p.done, old)
	}
	p.doneRing[p.doneNext] = id
	p.doneNext = (p.doneNext + 1) % len(p.doneRing)
	p.done[id] = true
}

func (p *Pool) forget(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.active, id)
}

// safeRun turns a panic in a job into an error so one bad job cannot stop
// a worker.
func (p *Pool) safeRun(job Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			JobLogger(p.logger, job).Error("review panicked", "panic", r)
			err = errors.New("review panicked")
		}
	}()
	return p.run(p.ctx, job)
}

// Shutdown stops accepting jobs and lets the workers finish the queued and
// running ones. When ctx ends first (the grace period), the running jobs'
// context is cancelled, so they end their reviews with a note to re-run,
// and jobs still queued are logged as not run; Shutdown then waits for the
// workers and returns ctx's error.
func (p *Pool) Shutdown(ctx context.Context) error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.queue)
	}
	started := p.started
	p.mu.Unlock()
	if !started {
		p.Start() // drain what was queued
	}
	finished := make(chan struct{})
	go func() { p.wg.Wait(); close(finished) }()
	select {
	case <-finished:
		p.cancel()
		return nil
	case <-ctx.Done():
	}
	p.cancel() // running reviews see a cancelled context and end their check runs
	<-finished
	return ctx.Err()
}
