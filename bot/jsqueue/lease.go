package jsqueue

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// errLeaseLost is a review's error when its pull request's lease went to
// another replica (it was not renewed in time): the review publishes
// nothing, and the job is delivered again.
var errLeaseLost = errors.New("the pull request's lease was lost")

// lease is one replica's hold on one pull request: a key in the lease
// bucket, created only when absent (or deleted, or expired after the
// bucket's TTL), renewed by compare-and-set on its revision, deleted at
// the end only while it is still ours.
type lease struct {
	kv    jetstream.KeyValue
	key   string
	value []byte
	ttl   time.Duration

	mu      sync.Mutex
	rev     uint64
	renewed time.Time
	lost    bool
}

// acquireLease waits until key is free and takes it, polling until ctx
// ends; beat is called at each wait so the job's ack timer is kept alive.
func acquireLease(ctx context.Context, kv jetstream.KeyValue, key string, value []byte, ttl time.Duration, beat func()) (*lease, error) {
	wait := 200 * time.Millisecond
	for {
		cctx, cancel := context.WithTimeout(ctx, requestTimeout)
		rev, err := kv.Create(cctx, key, value)
		cancel()
		if err == nil {
			return &lease{kv: kv, key: key, value: value, ttl: ttl, rev: rev, renewed: time.Now()}, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) && ctx.Err() == nil {
			// A transient error (a leader election): wait and try again.
			wait = min(2*wait, 2*time.Second)
		}
		beat()
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for lease %s: %w", key, context.Cause(ctx))
		case <-time.After(wait/2 + rand.N(wait)):
		}
	}
}

// renew extends the lease; an error means it is no longer ours for sure
// (errLeaseLost) or could not be renewed now.
func (l *lease) renew(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost {
		return errLeaseLost
	}
	rev, err := l.kv.Update(ctx, l.key, l.value, l.rev)
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyNotFound) || time.Since(l.renewed) > l.ttl {
			l.lost = true
			return fmt.Errorf("%w (%s): %w", errLeaseLost, l.key, err)
		}
		return fmt.Errorf("renewing lease %s: %w", l.key, err)
	}
	l.rev, l.renewed = rev, time.Now()
	return nil
}

// keep renews the lease every TTL/3 until ctx ends, calling lost once
// when it is no longer ours.
func (l *lease) keep(ctx context.Context, lost func(error)) {
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, l.ttl/3)
		err := l.renew(rctx)
		cancel()
		if errors.Is(err, errLeaseLost) {
			lost(err)
			return
		}
	}
}

// release deletes the lease while it is still ours.
func (l *lease) release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost {
		return nil
	}
	l.lost = true
	if err := l.kv.Delete(ctx, l.key, jetstream.LastRevision(l.rev)); err != nil {
		return fmt.Errorf("releasing lease %s: %w", l.key, err)
	}
	return nil
}
