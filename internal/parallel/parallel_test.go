package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestForCallsEachIndexOnce holds For to its contract: every
// index from 0 to n-1 exactly once, none outside, for counts below, at and
// above the number of workers.
func TestForCallsEachIndexOnce(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, n := range []int{0, 1, 2, procs, procs + 1, 1000} {
		calls := make([]atomic.Int32, n)
		var outside atomic.Int32
		For(n, func(i int) {
			if i < 0 || i >= n {
				outside.Add(1)
				return
			}
			calls[i].Add(1)
		})
		if got := outside.Load(); got != 0 {
			t.Errorf("n=%d: %d calls with an index outside 0..n-1", n, got)
		}
		for i := range calls {
			if got := calls[i].Load(); got != 1 {
				t.Errorf("n=%d: index %d called %d times, want once", n, i, got)
			}
		}
	}
}

// TestForUsesSeveralWorkers checks that the work is shared: with two
// or more CPUs, two calls run at once (each waits, bounded, for the other).
func TestForUsesSeveralWorkers(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS of 2 or more")
	}
	arrived := make(chan struct{}, 2)
	var together atomic.Bool
	For(2, func(int) {
		arrived <- struct{}{}
		for range 1000 {
			if len(arrived) == 2 {
				together.Store(true)
				return
			}
			runtime.Gosched()
		}
	})
	if !together.Load() {
		t.Error("the two calls never ran at the same time")
	}
}

// TestForPanicReachesTheCaller checks that a call that panics on a worker
// panics in For's caller, once every worker has stopped, with the call's
// value: the caller's recover sees it, where a worker's own panic would
// end the process.
func TestForPanicReachesTheCaller(t *testing.T) {
	for _, n := range []int{1, 2, 1000} {
		var done atomic.Int32
		got := func() (p any) {
			defer func() { p = recover() }()
			For(n, func(i int) {
				if i == n-1 {
					panic("boom")
				}
				done.Add(1)
			})
			return nil
		}()
		if got != "boom" {
			t.Errorf("n=%d: the caller recovered %v, want the call's panic", n, got)
		}
		if d := done.Load(); int(d) != n-1 {
			t.Errorf("n=%d: %d calls returned before For panicked, want every other call (%d)", n, d, n-1)
		}
	}
}

// TestGoPanicReachesTheWaiter checks that Go's wait returns once fn has,
// and panics in its caller with fn's panic.
func TestGoPanicReachesTheWaiter(t *testing.T) {
	ran := false
	Go(func() { ran = true })()
	if !ran {
		t.Error("wait returned before fn ran")
	}
	wait := Go(func() { panic("boom") })
	got := func() (p any) {
		defer func() { p = recover() }()
		wait()
		return nil
	}()
	if got != "boom" {
		t.Errorf("wait's caller recovered %v, want fn's panic", got)
	}
}
