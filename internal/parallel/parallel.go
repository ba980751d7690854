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
// of milliseconds waiting on it). A call that panics stops its worker; the
// others finish, and For then panics in the caller's goroutine with the
// first panic's value, so that the caller's recover sees it as if the
// loop had run there (a panic on a worker's own goroutine would end the
// process).
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
	var first caught
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			defer first.catch()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
	first.rethrow()
}

// Go calls fn on another goroutine and returns wait, which returns once fn
// has; when fn panicked, wait panics with its value in the goroutine that
// calls it, as For does. Call wait once.
func Go(fn func()) (wait func()) {
	var c caught
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer c.catch()
		fn()
	}()
	return func() {
		<-done
		c.rethrow()
	}
}

// caught holds the first panic recovered by catch. Its value is never nil
// once one was: since Go 1.21 recover returns a *runtime.PanicNilError for
// panic(nil).
type caught struct {
	once  sync.Once
	value any
}

// catch recovers a panic of the goroutine it is deferred in and keeps it
// if it is the first. It must be called directly by a deferred call.
func (c *caught) catch() {
	if p := recover(); p != nil {
		c.once.Do(func() { c.value = p })
	}
}

// rethrow panics with the kept panic's value, if there is one. Call it
// after every goroutine that may catch has ended.
func (c *caught) rethrow() {
	if c.value != nil {
		panic(c.value)
	}
}
