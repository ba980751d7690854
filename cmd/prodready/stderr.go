package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"
)

// maxStrayLines bounds the distinct lines a stray-stderr capture remembers
// having passed on; past it, it starts over (a line may then be passed on
// again).
const maxStrayLines = 1000

// logStrayStderr turns what libraries print to os.Stderr on their own into
// entries of logger, so that the server's log stays one JSON object per
// line: kustomize prints each deprecation warning of a kustomization it
// builds ("# Warning: 'bases' is deprecated…") straight to os.Stderr, once
// per build, and some notes through the standard log package. Each distinct
// line is logged once, at warning level, not once per render. The returned
// function puts os.Stderr back and returns once the last line is logged.
// The Go runtime's own crash output writes to file descriptor 2 itself and
// is not affected.
func logStrayStderr(logger *slog.Logger) (restore func()) {
	return captureStrayStderr(func(line string) { logger.Warn("library output on stderr", "text", line) },
		func(err error) { logger.Warn("library output on stderr stays unstructured", "err", err.Error()) })
}

// dedupeStrayStderr is logStrayStderr for the command line: each distinct
// line libraries print on their own goes to stderr once, a kustomize
// warning named as kustomize's, not once per overlay build with kustomize's
// "# " in front. Without it, `check` on a repository of overlays repeats
// "# Warning: 'commonLabels' is deprecated…" for every overlay.
func dedupeStrayStderr(stderr io.Writer) (restore func()) {
	return captureStrayStderr(func(line string) {
		if rest, ok := strings.CutPrefix(line, "# Warning: "); ok {
			line = "kustomize: warning: " + rest
		}
		fmt.Fprintln(stderr, line)
	}, func(error) {})
}

// captureStrayStderr points os.Stderr and the standard logger at a pipe and
// passes each distinct line written there to pass, in order, until the
// returned restore, which puts both back and returns once the last line is
// passed on. failed is told when no pipe can be had (output then stays as
// it is).
func captureStrayStderr(pass func(line string), failed func(error)) (restore func()) {
	r, w, err := os.Pipe()
	if err != nil {
		failed(err)
		return func() {}
	}
	orig, origFlags := os.Stderr, log.Flags()
	os.Stderr = w
	log.SetOutput(w) // the standard logger keeps the os.Stderr it started with
	log.SetFlags(0)  // a library's note, not a timestamped log line
	done := make(chan struct{})
	go func() {
		defer close(done)
		seen := map[string]bool{}
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 4096), 64<<10)
		for sc.Scan() {
			line := sc.Text()
			if line == "" || seen[line] {
				continue
			}
			if len(seen) >= maxStrayLines {
				clear(seen)
			}
			seen[line] = true
			pass(line)
		}
		_, _ = io.Copy(io.Discard, r) // a line over the scanner's bound: keep the writers unblocked
	}()
	return func() {
		os.Stderr = orig
		log.SetOutput(orig)
		log.SetFlags(origFlags)
		w.Close()
		<-done
		r.Close()
	}
}
