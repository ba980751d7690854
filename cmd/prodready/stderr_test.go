package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"os"
	"strings"
	"testing"
)

func TestLogStrayStderrMakesEachLineOneLogEntry(t *testing.T) {
	var out bytes.Buffer
	restore := logStrayStderr(slog.New(slog.NewJSONHandler(&out, nil)))
	warning := "# Warning: 'bases' is deprecated. Please use 'resources' instead."
	fmt.Fprintln(os.Stderr, warning)
	fmt.Fprintln(os.Stderr, warning) // the same overlay rendered again
	fmt.Fprintln(os.Stderr, "another line")
	log.Print("well-defined vars that were never replaced: X") // kustomize's notes
	restore()
	if os.Stderr == nil || os.Stderr.Fd() != 2 {
		t.Fatalf("os.Stderr not put back: %v", os.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 log entries (the repeat logged once), got %d:\n%s", len(lines), out.String())
	}
	var entry struct{ Level, Msg, Text string }
	if err := json.Unmarshal([]byte(lines[0]), &entry); err != nil {
		t.Fatalf("entry is not JSON: %v: %s", err, lines[0])
	}
	if entry.Level != "WARN" || entry.Text != warning {
		t.Errorf("entry = %+v, want a WARN entry with the line as text", entry)
	}
}
