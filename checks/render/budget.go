package render

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// A render is bounded by the work it does, not by the wall clock: on a
// machine busy with other builds a render gets a fraction of a core, and a
// wall-clock limit failed overlays that build in 2 s on an idle machine.

// active counts the renders being made in this process: each is charged
// an equal share of the CPU time the process uses while it runs.
var active atomic.Int64

// wallFactor is how many times its budget of wall time a render may take
// before it is stopped whatever its CPU time: a backstop for a render that
// waits on something and never ends, which its CPU time would not catch.
const wallFactor = 10

// budgetTick is how often a render's CPU time is taken.
const budgetTick = 50 * time.Millisecond

// withBudget returns a context that ends when the render made under it has
// had budget of CPU time (its share of the process's: the CPU time the
// process used while it ran, divided among the renders running with it),
// or wallFactor times budget of wall time; context.Cause says which. Where
// the process's CPU time cannot be read, budget is wall time.
func withBudget(ctx context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := processCPU(); !ok {
		c, cancel := context.WithTimeoutCause(ctx, budget, fmt.Errorf("render stopped at its time limit of %s", budget))
		return c, cancel
	}
	c, cancelCause := context.WithCancelCause(ctx)
	active.Add(1)
	done := make(chan struct{})
	go func() {
		defer active.Add(-1)
		t := time.NewTicker(budgetTick)
		defer t.Stop()
		start := time.Now()
		last, _ := processCPU()
		var used time.Duration
		for {
			select {
			case <-done:
				return
			case <-c.Done():
				return
			case <-t.C:
			}
			now, _ := processCPU()
			used += (now - last) / time.Duration(max(active.Load(), 1))
			last = now
			switch {
			case used > budget:
				cancelCause(fmt.Errorf("render stopped at its CPU-time limit of %s", budget))
				return
			case time.Since(start) > wallFactor*budget:
				cancelCause(fmt.Errorf("render stopped after %s of wall time (%s of CPU time used, of a limit of %s)", wallFactor*budget, used.Round(time.Millisecond), budget))
				return
			}
		}
	}()
	return c, func() {
		close(done)
		cancelCause(context.Canceled)
	}
}

// stopCause is why ctx ended, for a render's problem.
func stopCause(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return ctx.Err()
}
