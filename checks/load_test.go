package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// TestListReadsWhenParsed checks that List defers reading to the run: the
// content at parse time is what is checked, a file that cannot be read then
// is a finding for that file, and the other files are still checked.
func TestListReadsWhenParsed(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	gone := filepath.Join(dir, "gone.yaml")
	for _, p := range []string{good, gone} {
		if err := os.WriteFile(p, []byte("kind: ConfigMap\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := checks.DefaultConfig(catalog.Default())
	inputs, err := checks.List([]string{dir}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 2 || inputs[0].Data != nil || inputs[0].Read == nil {
		t.Fatalf("List should return two unread inputs, got %+v", inputs)
	}
	// Changed and removed after listing: the run sees the files as they are.
	naked := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n"
	if err := os.WriteFile(good, []byte(naked), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	res := checks.Run(inputs, cfg, checks.Options{Memory: checks.Lean})
	var unreadable, nakedPod bool
	for _, f := range res.Findings {
		if f.File == filepath.ToSlash(gone) && f.RuleID == "yaml-invalid" && strings.Contains(f.Message, "cannot be read") {
			unreadable = true
		}
		if f.File == filepath.ToSlash(good) && f.RuleID == "naked-pod" {
			nakedPod = true
		}
	}
	if !unreadable || !nakedPod {
		t.Errorf("want a read finding for gone.yaml and naked-pod for good.yaml; got %+v", res.Findings)
	}
}

// TestListReadsAtMostTheLimit checks that an oversized file is read only up
// to the size limit and reported as too large.
func TestListReadsAtMostTheLimit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("a: "+strings.Repeat("x", 4096)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := checks.DefaultConfig(catalog.Default())
	cfg.Limits.MaxFileBytes = 1000
	inputs, err := checks.List([]string{big}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := inputs[0].Read(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 1001 {
		t.Errorf("read %d bytes, want the limit plus one (1001)", len(data))
	}
	res := checks.Run(inputs, cfg, checks.Options{Memory: checks.Lean})
	if len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, "over the") {
		t.Errorf("want one too-large finding, got %+v", res.Findings)
	}
}
