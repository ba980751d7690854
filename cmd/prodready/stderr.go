package main

import (
	"bufio"
	"log"
	"log/slog"
	"os"
)

// maxStrayLines bounds the distinct lines logStrayStderr remembers having
// logged; past it, it starts over (a line may then be logged again).
const maxStrayLines = 1000

// logStrayStderr turns what libraries print to os.Stderr on their own into
// entries of logger, so that the server's log stays one JSON object per
// line: kustomize prints each deprecation warning of a kustomization it
// builds ("# Warning: 'bases' is deprecated…") straight to os.Stderr, once
// per build, and some notes through the standard log package. Each distinct line is logged once, at warning level, not once
// per render. The returned function puts os.Stderr back and returns once
// the last line is logged. The Go runtime's own crash output writes to file
// descriptor 2 itself and is not affected.
func logStrayStderr(logger *slog.Logger) (restore func()) {
	r, w, err := os.Pipe()
	if err != nil {
		logger.Warn("library output on stderr stays unstructured", "err", err.Error())
		return func() {}
	}
	orig := os.Stderr
	os.Stderr = w
	log.SetOutput(w) // the standard logger keeps the os.Stderr it started with
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
			logger.Warn("library output on stderr", "text", line)
		}
	}()
	return func() {
		os.Stderr = orig
		log.SetOutput(orig)
		w.Close()
		<-done
		r.Close()
	}
}
