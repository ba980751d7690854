package rendered

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// Request is what a render worker reads on its standard input: the files
// of one folder of the repository and how to render them.
type Request struct {
	Files   Files   `json:"files"`
	Options Options `json:"options"`
}

// MaxRequestBytes bounds a request a worker reads (the files' text, in
// base64, plus the options).
const MaxRequestBytes = 512 << 20

// A Renderer renders the charts and overlays among files.
type Renderer func(ctx context.Context, files Files, opts Options) (Result, error)

// Worker returns a Renderer that runs program with args (prodready-bot
// render) as a separate process: it sends the Request as JSON on its
// standard input and reads the Result as JSON from its standard output.
// The lean prodready CLI renders this way, so a run without charts or
// overlays does not carry the Helm and kustomize libraries.
func Worker(program string, args ...string) Renderer {
	return func(ctx context.Context, files Files, opts Options) (Result, error) {
		req, err := json.Marshal(Request{Files: files, Options: opts})
		if err != nil {
			return Result{}, fmt.Errorf("render worker: %w", err)
		}
		cmd := exec.CommandContext(ctx, program, args...)
		cmd.Stdin = bytes.NewReader(req)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			msg := bytes.TrimSpace(stderr.Bytes())
			if len(msg) > 500 {
				msg = msg[:500]
			}
			return Result{}, fmt.Errorf("render worker %s: %w: %s", program, err, msg)
		}
		var res Result
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			return Result{}, fmt.Errorf("render worker %s: reading its answer: %w", program, err)
		}
		return res, nil
	}
}

// Serve is a render worker's side: it reads one Request from r, renders it
// with render, and writes the Result to w.
func Serve(r io.Reader, w io.Writer, render Renderer) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxRequestBytes+1))
	if err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	if len(data) > MaxRequestBytes {
		return errors.New("the request is over its size bound")
	}
	var req Request
	if err := json.Unmarshal(data, &req); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	res, err := render(context.Background(), req.Files, req.Options)
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(res)
}
