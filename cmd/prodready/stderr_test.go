package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogStrayStderrMakesEachLineOneLogEntry(t *testing.T) {
	var out bytes.Buffer
	orig := os.Stderr
	restore := logStrayStderr(slog.New(slog.NewJSONHandler(&out, nil)))
	warning := "# Warning: 'bases' is deprecated. Please use 'resources' instead."
	fmt.Fprintln(os.Stderr, warning)
	fmt.Fprintln(os.Stderr, warning) // the same overlay rendered again
	fmt.Fprintln(os.Stderr, "another line")
	log.Print("well-defined vars that were never replaced: X") // kustomize's notes
	restore()
	if os.Stderr != orig {
		t.Fatalf("os.Stderr not put back: %v, want %v", os.Stderr, orig)
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

func TestDedupeStrayStderrNamesKustomizeOnce(t *testing.T) {
	var out bytes.Buffer
	orig := os.Stderr
	restore := dedupeStrayStderr(&out)
	for range 3 { // three overlays built
		fmt.Fprintln(os.Stderr, "# Warning: 'commonLabels' is deprecated. Please use 'labels' instead.")
	}
	log.Print("well-defined vars that were never replaced: X")
	restore()
	if os.Stderr != orig {
		t.Fatalf("os.Stderr not put back: %v, want %v", os.Stderr, orig)
	}
	want := "kustomize: warning: 'commonLabels' is deprecated. Please use 'labels' instead.\n" +
		"well-defined vars that were never replaced: X\n"
	if out.String() != want {
		t.Errorf("stderr = %q, want %q", out.String(), want)
	}
}

// TestCheckSaysAKustomizeWarningOnce runs check as a process on two
// overlays that both use a field kustomize deprecates: kustomize prints its
// warning once per build, the user reads it once, named as kustomize's.
func TestCheckSaysAKustomizeWarningOnce(t *testing.T) {
	dir := t.TempDir()
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n"
	for _, overlay := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, overlay), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, overlay, "deployment.yaml"), []byte(deploy), 0o644); err != nil {
			t.Fatal(err)
		}
		kust := "resources: [deployment.yaml]\ncommonLabels:\n  team: " + overlay + "\n"
		if err := os.WriteFile(filepath.Join(dir, overlay, "kustomization.yaml"), []byte(kust), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, _ := runCLI(t, dir, "check", "-o", "json", ".")
	if n := strings.Count(stderr, "'commonLabels' is deprecated"); n != 1 {
		t.Errorf("the deprecation is said %d times, want once:\n%s", n, stderr)
	}
	if strings.Contains(stderr, "# Warning") || !strings.Contains(stderr, "kustomize: warning: 'commonLabels' is deprecated") {
		t.Errorf("the deprecation is not named as kustomize's:\n%s", stderr)
	}
}
