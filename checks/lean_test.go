package checks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
)

// TestRunLeanMatchesRun checks that the CLI's lean run (packed node trees,
// inflated per object while its rules run) reports exactly what the full
// run reports: on the fixtures, and on the shared corpus when present.
func TestRunLeanMatchesRun(t *testing.T) {
	dirs := []string{filepath.Join("..", "fixtures")}
	corpus := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err == nil && !testing.Short() {
		dirs = append(dirs, corpus)
	} else {
		t.Log("fixtures only: ../shared/corpus not present or -short")
	}
	for _, dir := range dirs {
		cfg := checks.DefaultConfig()
		inputs, err := checks.Load([]string{dir}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		lean := make([]checks.Input, len(inputs))
		copy(lean, inputs)
		full := checks.Run(inputs, cfg)
		got := checks.RunLean(lean, cfg)
		if len(full.Findings) < 50 {
			t.Fatalf("%s: only %d findings: the comparison would prove little", dir, len(full.Findings))
		}
		if d := cmp.Diff(full.Findings, got.Findings); d != "" {
			t.Errorf("%s: lean run differs from the full run (-full +lean):\n%s", dir, d)
		}
		t.Logf("%s: %d findings, the same in both runs", dir, len(got.Findings))
	}
}
