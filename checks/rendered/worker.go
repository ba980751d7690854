package rendered

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Request is what a render worker reads on its standard input: the files
// of one folder of the repository (those a render can read) and how to
// render them.
type Request struct {
	Files   Files   `json:"files"`
	Options Options `json:"options"`
}

// MaxRequestBytes bounds a request a worker reads (the files' contents).
const MaxRequestBytes = 512 << 20

// A Renderer renders the charts and overlays among files.
type Renderer func(ctx context.Context, files Files, opts Options) (Result, error)

// Worker returns a Renderer that runs program with args (the same binary's
// hidden render-worker command) as a separate process under lim: it sends
// the Request on its standard input and reads the Result from its standard
// output, in the protocol of WriteRequest and WriteResult (a JSON header,
// then the raw bytes of the files or of the rendered streams). Only the
// files a render can read are sent (Needed). The worker gets lim as flags
// (Limits.Args) and applies them to itself; the parent kills its process
// group at its deadline or when ctx ends, and nothing of it outlives the
// call (see watchDeadline: wall time in which the worker does work does
// not count). A worker that dies is an error naming why: its memory or
// CPU-time limit, its deadline, or its last words.
func Worker(program string, args []string, lim Limits) Renderer {
	return func(ctx context.Context, files Files, opts Options) (Result, error) {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		cmd := exec.CommandContext(ctx, program, append(append([]string(nil), args...), lim.Args()...)...)
		cmd.SysProcAttr = newSysProcAttr()
		cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
		cmd.WaitDelay = 2 * time.Second
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return Result{}, fmt.Errorf("render worker: %w", err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return Result{}, fmt.Errorf("render worker: %w", err)
		}
		stderr := &tailBuffer{max: 4 << 10}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			return Result{}, fmt.Errorf("starting the render worker %s: %w", program, err)
		}
		if lim.Deadline > 0 {
			stop := watchDeadline(ctx, cancel, cmd.Process.Pid, lim.Deadline)
			defer stop()
		}
		sent := make(chan error, 1)
		go func() {
			w := bufio.NewWriterSize(stdin, 256<<10)
			err := WriteRequest(w, Request{Files: Needed(files, opts), Options: opts})
			if err == nil {
				err = w.Flush()
			}
			if cerr := stdin.Close(); err == nil {
				err = cerr
			}
			sent <- err
		}()
		res, readErr := ReadResult(stdout)
		if readErr != nil {
			_, _ = io.Copy(io.Discard, stdout) // let the worker finish writing
		}
		// Whatever the worker started dies with it. Its group is killed
		// once it has exited but before it is reaped: until then its pid,
		// which names the group, cannot be given to another process.
		waitExited(cmd.Process.Pid)
		_ = killGroup(cmd.Process.Pid)
		waitErr := cmd.Wait()
		sendErr := <-sent
		if waitErr != nil || readErr != nil {
			return Result{}, workerError(ctx, cmd.ProcessState, lim, stderr.String(), waitErr, readErr, sendErr)
		}
		return res, nil
	}
}

// deadlineError is why a worker was stopped at its deadline.
type deadlineError struct{ msg string }

func (e deadlineError) Error() string { return e.msg }

// deadlineFactor is how many times its deadline of wall time a worker
// that keeps using CPU may run: the CPU-time limit stops it first unless
// the machine is that busy.
const deadlineFactor = 10

// watchDeadline stops the worker pid (through cancel) when it has spent
// deadline of wall time using no CPU (waiting on something, never
// ending), or deadlineFactor times deadline in all. Wall time in which it
// used CPU does not count toward deadline: on a machine busy with other
// work a worker gets a fraction of a core, and its CPU-time limit is what
// bounds its work. Where a worker's CPU time cannot be read, deadline is
// wall time. The returned func ends the watch.
func watchDeadline(ctx context.Context, cancel context.CancelCauseFunc, pid int, deadline time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		const tick = 250 * time.Millisecond
		t := time.NewTicker(tick)
		defer t.Stop()
		start := time.Now()
		last, readable := workerCPU(pid)
		var idle time.Duration
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			now, ok := workerCPU(pid)
			switch {
			case !readable || !ok:
				idle = time.Since(start)
			case now == last:
				idle += tick
			}
			last = now
			switch {
			case idle >= deadline:
				cancel(deadlineError{fmt.Sprintf("render stopped at its deadline of %s (wall time using no CPU)", deadline)})
				return
			case time.Since(start) >= deadlineFactor*deadline:
				cancel(deadlineError{fmt.Sprintf("render stopped after %s of wall time (%d times its deadline of %s)", deadlineFactor*deadline, deadlineFactor, deadline)})
				return
			}
		}
	}()
	return func() { close(done) }
}

// workerError says why a worker ended without a whole answer, in the
// terms of its limits where one of them ended it.
func workerError(ctx context.Context, st *os.ProcessState, lim Limits, stderr string, waitErr, readErr, sendErr error) error {
	last := strings.TrimSpace(stderr)
	if i := strings.LastIndexByte(last, '\n'); i >= 0 && !memoryLimitError(last) {
		last = last[i+1:]
	}
	switch {
	case ctx.Err() != nil && errors.As(context.Cause(ctx), new(deadlineError)):
		return context.Cause(ctx)
	case ctx.Err() != nil:
		return fmt.Errorf("render stopped: %w", ctx.Err())
	case strings.Contains(last, cpuLimitMessage) || signalled(st, "cpu time limit exceeded"):
		return fmt.Errorf("render stopped at its CPU-time limit of %s", lim.CPU)
	case memoryLimitError(stderr):
		return fmt.Errorf("render stopped at its memory limit of %d MiB", lim.Memory>>20)
	}
	if len(last) > 500 {
		last = last[:500]
	}
	switch {
	case waitErr != nil:
		return fmt.Errorf("render worker failed: %w: %s", waitErr, last)
	case sendErr != nil:
		return fmt.Errorf("render worker: sending the request: %w", sendErr)
	}
	return fmt.Errorf("render worker: reading its answer: %w", readErr)
}

// signalled reports whether st ended by a signal whose name contains name.
func signalled(st *os.ProcessState, name string) bool {
	if st == nil {
		return false
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && strings.Contains(strings.ToLower(ws.Signal().String()), name)
}

// tailBuffer keeps the first and the last max/2 bytes written to it: a
// worker's first words (the runtime's "fatal error: out of memory" comes
// before its goroutine dump) and its last, however much it wrote.
type tailBuffer struct {
	mu         sync.Mutex
	max        int
	head, tail []byte
	cut        bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max/2 - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.tail = append(t.tail, p...)
	if len(t.tail) > t.max/2 {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-t.max/2:]...)
		t.cut = true
	}
	return n, nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return string(t.head) + "\n…\n" + string(t.tail)
	}
	return string(t.head) + string(t.tail)
}

// WorkerMemoryBase is the part of a render worker's soft memory limit that
// does not grow with its request (see Serve): room for the renders of one
// chart, measured at 65 MB of live heap at most on the charts of the
// prometheus-community and argo-helm repositories.
const WorkerMemoryBase = 64 << 20

// A StreamRenderer renders as a Renderer does, but hands each render to
// emit, in the Result's order, as soon as it is made, and returns the rest
// of the Result (its Renders empty). A render worker serves one, so that it
// holds the renders it has written no longer.
type StreamRenderer func(ctx context.Context, files Files, opts Options, emit func(*Render)) Result

// Serve is a render worker's side: it reads one Request from r, renders it
// with render, and writes each render to w as it is made, then the end of
// the Result (the protocol of WriteRequest and WriteResult).
//
// While it renders, the collector is held to a soft memory limit
// (runtime/debug.SetMemoryLimit) of WorkerMemoryBase plus twice the
// request's files, unless GOMEMLIMIT is set: a worker holds the files and
// one render at a time, and without the limit the heap grew to twice that
// before each collection.
func Serve(r io.Reader, w io.Writer, render StreamRenderer) error {
	req, err := ReadRequest(r)
	if err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		n := 0
		for _, data := range req.Files {
			n += len(data)
		}
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(WorkerMemoryBase + 2*int64(n)))
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var writeErr error
	res := render(context.Background(), req.Files, req.Options, func(r *Render) {
		if writeErr == nil && r != nil {
			writeErr = WriteRender(bw, r)
		}
	})
	if writeErr != nil {
		return fmt.Errorf("writing the answer: %w", writeErr)
	}
	if err := WriteEnd(bw, res); err != nil {
		return fmt.Errorf("writing the answer: %w", err)
	}
	return bw.Flush()
}
