package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressAfter is how long a run goes before its progress line shows:
// a quick run prints none.
const progressAfter = time.Second

// progress is the line check keeps on stderr, when stderr is a terminal,
// while a run lasts more than progressAfter: how long so far and how many
// findings. It is erased when the run ends, so the report alone stays.
type progress struct {
	w        io.Writer
	start    time.Time
	mu       sync.Mutex
	findings int
	shown    bool
	done     chan struct{}
	wg       sync.WaitGroup
}

// startProgress starts the progress line on w; nothing is ever written
// when w is not a terminal.
func startProgress(w io.Writer) *progress {
	return newProgress(w, isTerminal(w), time.Now())
}

// newProgress is startProgress with whether w is a terminal and when the
// run started given.
func newProgress(w io.Writer, terminal bool, start time.Time) *progress {
	p := &progress{w: w, start: start, done: make(chan struct{})}
	if !terminal {
		return p
	}
	p.wg.Go(func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case now := <-t.C:
				if now.Sub(p.start) >= progressAfter {
					p.draw(now)
				}
			}
		}
	})
	return p
}

// add counts n more findings.
func (p *progress) add(n int) {
	p.mu.Lock()
	p.findings += n
	p.mu.Unlock()
}

func (p *progress) draw(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[Kprodready: checking… %ds, %d findings so far", int(now.Sub(p.start).Seconds()), p.findings)
	p.shown = true
}

// writer is out with the progress line erased before each write, when out
// is the same terminal (the next tick draws it again below what was
// written).
func (p *progress) writer(out io.Writer) io.Writer {
	if !isTerminal(p.w) || !isTerminal(out) {
		return out
	}
	return progressWriter{p, out}
}

type progressWriter struct {
	p   *progress
	out io.Writer
}

func (w progressWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	if w.p.shown {
		fmt.Fprint(w.p.w, "\r\033[K")
		w.p.shown = false
	}
	return w.out.Write(b)
}

// stop ends the progress line and erases it.
func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
