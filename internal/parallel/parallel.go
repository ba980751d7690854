// Package parallel runs a loop's iterations on every CPU.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(0..n-1) on every CPU and returns once every call has. Each
// worker takes the next index from a shared counter: no goroutine hands
// them out, so a worker never waits for a dispatcher to get a CPU (with a
// channel fed by the caller, the workers of a two-CPU check run spent tens
// of milliseconds waiting on it).
func For(n int, fn func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}
