package jsqueue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/bot"
)

// healthEvery is how often a started queue checks that JetStream can store
// its jobs; Health, /readyz and Enqueue read the last result.
const healthEvery = time.Second

// healthTimeout bounds one check's requests to JetStream.
const healthTimeout = 2 * time.Second

// healthStale is the age past which Health checks again itself (the queue
// not started yet, or its checks stuck).
const healthStale = 3 * healthEvery

// stuckAfter is how long the embedded server's JetStream may stay unable
// to store jobs (ErrQueueUnavailable, not a full disk) before Live fails:
// its own restarts (Embedded.Health) have had that long to bring it back,
// and a restart of the process is the next remedy.
const stuckAfter = 5 * time.Minute

// health is the last check's result.
type health struct {
	mu  sync.Mutex
	err error
	at  time.Time
	// unavailableSince is when the checks began to find the queue
	// unavailable (zero while it stores jobs, or is only full).
	unavailableSince time.Time
}

// record keeps a check's result made at now.
func (h *health) record(err error, now time.Time) {
	h.err, h.at = err, now
	switch {
	case err == nil || !errors.Is(err, bot.ErrQueueUnavailable) || errors.Is(err, bot.ErrStorageFull):
		h.unavailableSince = time.Time{}
	case h.unavailableSince.IsZero():
		h.unavailableSince = now
	}
}

// stuck returns why the queue counts as stuck at now: unavailable for
// longer than after.
func (h *health) stuck(now time.Time, after time.Duration) error {
	if h.unavailableSince.IsZero() || now.Sub(h.unavailableSince) < after {
		return nil
	}
	return fmt.Errorf("the queue has not been able to store jobs for %s: %w", now.Sub(h.unavailableSince).Round(time.Second), h.err)
}

// Live reports whether the process is worth keeping: an error when the
// embedded server's JetStream has been unable to store jobs for five
// minutes although the checks restart it (a full disk does not count: a
// new process would find it as full). /healthz answers 503 with it, so
// that the kubelet restarts the container. With an external NATS it is
// always nil: every replica would restart at once, and none would bring
// the cluster back.
func (q *Queue) Live() error {
	if q.opt.Embedded == nil {
		return nil
	}
	q.health.mu.Lock()
	defer q.health.mu.Unlock()
	return q.health.stuck(time.Now(), stuckAfter)
}

// Health reports whether JetStream can store a job now: nil, or an error
// wrapping bot.ErrStorageFull (the disk or JetStream's storage is full) or
// bot.ErrQueueUnavailable (not connected, JetStream disabled or not
// answering, or the stream unable to write) with the cause. It returns the
// result of the last check (made every second once the queue started), so
// it is cheap enough for every readiness probe and every delivery; the
// embedded server's JetStream is restarted by the checks when its store
// failed to write and the disk has room again (Embedded.Health).
func (q *Queue) Health() error {
	q.health.mu.Lock()
	defer q.health.mu.Unlock()
	if time.Since(q.health.at) > healthStale {
		q.health.record(q.check(), time.Now())
	}
	return q.health.err
}

// watchHealth checks JetStream every healthEvery until Shutdown, logging
// each change between able and unable to store.
func (q *Queue) watchHealth() {
	defer q.wg.Done()
	t := time.NewTicker(healthEvery)
	defer t.Stop()
	var was error
	for {
		select {
		case <-q.stop:
			return
		case <-t.C:
		}
		err := q.check()
		q.health.mu.Lock()
		q.health.record(err, time.Now())
		q.health.mu.Unlock()
		switch {
		case err != nil && (was == nil || err.Error() != was.Error()):
			q.log.Error("the queue cannot store jobs: deliveries are answered 503 and /readyz is 503", "cause", err.Error())
		case err == nil && was != nil:
			q.log.Info("the queue stores jobs again: /readyz is 200", "was", was.Error())
		}
		was = err
	}
}

// check asks NATS whether the stream can take a job: the connection, the
// embedded server's JetStream health (when embedded), the stream's info
// and the account's storage.
func (q *Queue) check() error {
	if !q.nc.IsConnected() {
		return fmt.Errorf("%w: not connected to NATS (%s)", bot.ErrQueueUnavailable, strings.ToLower(q.nc.Status().String()))
	}
	if q.opt.Embedded != nil {
		if err := q.opt.Embedded.Health(); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
	defer cancel()
	if _, err := q.js.Stream(ctx, q.cfg.Stream); err != nil {
		return classify(fmt.Errorf("stream %s: %w", q.cfg.Stream, err))
	}
	ai, err := q.js.AccountInfo(ctx)
	if err != nil {
		return classify(fmt.Errorf("account info: %w", err))
	}
	if max := ai.Limits.MaxStore; max > 0 && int64(ai.Store) >= max {
		return fmt.Errorf("%w: the NATS account's JetStream storage holds %d of its %d bytes", bot.ErrStorageFull, ai.Store, max)
	}
	return nil
}

// JetStream's error codes that mean its storage is full (nats-server's
// JSInsufficientResourcesErr: the server's max_file_store is reached,
// JSStorageResourcesExceededErr, JSMemoryResourcesExceededErr and
// JSAccountResourcesExceededErr), and that a stream could not store a
// message (JSStreamStoreFailedF: its own limits, or a write error).
const (
	jsErrInsufficientResources    jetstream.ErrorCode = 10023
	jsErrStorageResourcesExceeded jetstream.ErrorCode = 10047
	jsErrMemoryResourcesExceeded  jetstream.ErrorCode = 10028
	jsErrAccountResourcesExceeded jetstream.ErrorCode = 10002
	jsErrStreamStoreFailed        jetstream.ErrorCode = 10077
)

// noSpace is how an ENOSPC from the disk reads in JetStream's errors
// (nats-server's isOutOfSpaceErr looks for the same).
const noSpace = "no space left"

// classify wraps an error of a publish or a request to JetStream in the
// reason the queue cannot store a job: bot.ErrQueueFull when the stream's
// own limits (--queue-size, --queue-max-bytes) refused it,
// bot.ErrStorageFull when the disk or JetStream's storage is full, and
// bot.ErrQueueUnavailable otherwise (no answer, JetStream off, a write
// error).
func classify(err error) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode {
		case jsErrInsufficientResources, jsErrStorageResourcesExceeded, jsErrAccountResourcesExceeded, jsErrMemoryResourcesExceeded:
			return fmt.Errorf("%w: %w", bot.ErrStorageFull, err)
		case jsErrStreamStoreFailed:
			switch d := apiErr.Description; {
			case strings.Contains(d, "maximum messages"), strings.Contains(d, "maximum bytes"):
				return fmt.Errorf("%w: %w", bot.ErrQueueFull, err)
			case strings.Contains(d, noSpace):
				return fmt.Errorf("%w: %w", bot.ErrStorageFull, err)
			}
		}
	}
	if strings.Contains(err.Error(), noSpace) {
		return fmt.Errorf("%w: %w", bot.ErrStorageFull, err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
		return fmt.Errorf("%w: JetStream did not answer in time: %w", bot.ErrQueueUnavailable, err)
	}
	return fmt.Errorf("%w: %w", bot.ErrQueueUnavailable, err)
}
