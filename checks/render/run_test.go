package render

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// TestInOrderEmitsInIndexOrder makes renders on several goroutines: they
// are emitted in index order, and no more than workers are ever being made
// or waiting to be emitted.
func TestInOrderEmitsInIndexOrder(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		const n = 20
		gates := make([]chan struct{}, n)
		for i := range gates {
			gates[i] = make(chan struct{})
		}
		var pending, most atomic.Int64
		started := make(chan int, n)
		var got []string
		go func() {
			// Each render goes on once another goroutine has seen it start.
			for range n {
				i := <-started
				close(gates[i])
			}
		}()
		inOrder(n, workers, func(i int) *rendered.Render {
			p := pending.Add(1)
			for m := most.Load(); p > m && !most.CompareAndSwap(m, p); m = most.Load() {
			}
			started <- i
			<-gates[i]
			return &rendered.Render{Root: strconv.Itoa(i)}
		}, func(r *rendered.Render) {
			got = append(got, r.Root)
			pending.Add(-1)
		})
		for i, root := range got {
			if root != strconv.Itoa(i) {
				t.Fatalf("workers %d: emitted %v, not in index order", workers, got)
			}
		}
		if len(got) != n {
			t.Fatalf("workers %d: emitted %d of %d", workers, len(got), n)
		}
		if most.Load() > int64(workers) {
			t.Errorf("workers %d: %d renders made and not yet emitted at once", workers, most.Load())
		}
	}
}
