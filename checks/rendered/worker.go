package rendered

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
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

// Worker returns a Renderer that runs program with args (prodready-bot
// render) as a separate process: it sends the Request on its standard input
// and reads the Result from its standard output, in the protocol of
// WriteRequest and WriteResult (a JSON header, then the raw bytes of the
// files or of the rendered streams). Only the files a render can read are
// sent (Needed). The lean prodready CLI renders this way, so a run without
// charts or overlays does not carry the Helm and kustomize libraries.
func Worker(program string, args ...string) Renderer {
	return func(ctx context.Context, files Files, opts Options) (Result, error) {
		cmd := exec.CommandContext(ctx, program, args...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return Result{}, fmt.Errorf("render worker: %w", err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return Result{}, fmt.Errorf("render worker: %w", err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return Result{}, fmt.Errorf("render worker %s: %w", program, err)
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
		waitErr := cmd.Wait()
		sendErr := <-sent
		if waitErr != nil {
			msg := bytes.TrimSpace(stderr.Bytes())
			if len(msg) > 500 {
				msg = msg[:500]
			}
			return Result{}, fmt.Errorf("render worker %s: %w: %s", program, waitErr, msg)
		}
		if sendErr != nil {
			return Result{}, fmt.Errorf("render worker %s: sending the request: %w", program, sendErr)
		}
		if readErr != nil {
			return Result{}, fmt.Errorf("render worker %s: reading its answer: %w", program, readErr)
		}
		return res, nil
	}
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
