package render

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBudgetCountsWorkNotWallTime: a render that does no work is not
// stopped when its budget of wall time has passed (a busy machine gives it
// little CPU; what bounds it is the work it does), only at the wall-time
// backstop; a render that works is stopped at its CPU-time limit.
func TestBudgetCountsWorkNotWallTime(t *testing.T) {
	if _, ok := processCPU(); !ok {
		t.Skip("this system's process CPU time cannot be read: renders are bounded by wall time")
	}
	const budget = 50 * time.Millisecond
	ctx, cancel := withBudget(context.Background(), budget)
	time.Sleep(6 * budget)
	if ctx.Err() != nil {
		t.Fatalf("an idle render was stopped after %s of wall time: %v", 6*budget, stopCause(ctx))
	}
	<-ctx.Done()
	if err := stopCause(ctx); !strings.Contains(err.Error(), "of wall time") {
		t.Errorf("the idle render stopped with %q, want the wall-time backstop", err)
	}
	cancel()

	ctx, cancel = withBudget(context.Background(), budget)
	defer cancel()
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				_ = n * n
			}
		})
	}
	wg.Wait()
	if err := stopCause(ctx); !strings.Contains(err.Error(), "CPU-time limit of 50ms") {
		t.Errorf("the working render stopped with %q, want its CPU-time limit", err)
	}
}
