package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer the progress goroutine and the test can
// share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestProgressLine: on a terminal, a run that has lasted over a second
// gets a line saying how long and how many findings, redrawn in place and
// erased when it ends; off a terminal nothing is written.
func TestProgressLine(t *testing.T) {
	var w lockedBuffer
	p := newProgress(&w, true, time.Now().Add(-3*time.Second))
	p.add(7)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(w.String(), "findings so far") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	p.stop()
	got := w.String()
	if !strings.Contains(got, "\r\033[Kprodready: checking… ") || !strings.Contains(got, "s, 7 findings so far") {
		t.Errorf("progress line %q, want the elapsed time and 7 findings", got)
	}
	if !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("progress line not erased at the end: %q", got)
	}

	var quiet lockedBuffer
	p = newProgress(&quiet, false, time.Now().Add(-3*time.Second))
	p.add(1)
	time.Sleep(300 * time.Millisecond)
	p.stop()
	if quiet.String() != "" {
		t.Errorf("progress off a terminal wrote %q", quiet.String())
	}

	// A run under a second shows nothing.
	var fast lockedBuffer
	p = newProgress(&fast, true, time.Now())
	p.stop()
	if fast.String() != "" {
		t.Errorf("a run under a second wrote %q", fast.String())
	}
}
