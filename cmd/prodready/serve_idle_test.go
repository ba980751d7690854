package main

import (
	"context"
	"math"
	"runtime/debug"
	"sync/atomic"
	"testing"

	"github.com/prodready/prodready/bot"
)

// TestCollectWhenIdle holds serve's handler to one collection when the
// last running job ends, under a memory limit only: none while another
// job still runs, and none at all without a limit.
func TestCollectWhenIdle(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	ran := 0
	var collections atomic.Int64
	collect := func() { collections.Add(1) }
	unlimited := collectWhenIdle(func(context.Context, bot.Job) error { ran++; return nil }, collect)
	if err := unlimited(context.Background(), bot.Job{}); err != nil || ran != 1 {
		t.Fatalf("handler ran %d times, err %v", ran, err)
	}
	if got := collections.Load(); got != 0 {
		t.Errorf("without a memory limit: %d collections after the last job, want none", got)
	}

	debug.SetMemoryLimit(440 << 20)
	inner := make(chan struct{})
	release := make(chan struct{})
	var handle func(context.Context, bot.Job) error
	handle = collectWhenIdle(func(_ context.Context, job bot.Job) error {
		if job.DeliveryID == "outer" {
			// A second job starts and ends while this one runs.
			if err := handle(context.Background(), bot.Job{DeliveryID: "inner"}); err != nil {
				return err
			}
			close(inner)
			<-release
		}
		return nil
	}, collect)
	done := make(chan error)
	go func() { done <- handle(context.Background(), bot.Job{DeliveryID: "outer"}) }()
	<-inner
	if got := collections.Load(); got != 0 {
		t.Errorf("a job ended while another ran: %d collections, want none", got)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := collections.Load(); got != 1 {
		t.Errorf("the last job ended: %d collections, want one", got)
	}
}
