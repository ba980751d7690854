package health_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestProbesEquivalentNeverBesideIdentical checks every fixture folder:
// a container whose probes are identical gets probes-identical only, never
// probes-equivalent as well.
func TestProbesEquivalentNeverBesideIdentical(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(checkstest.RulesDir(t), "*"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		res, _ := checkstest.Fixture(t, catalog.Default(), dir)
		identical := map[string]bool{}
		for _, f := range res.Findings {
			if f.RuleID == "probes-identical" {
				identical[f.File+"|"+f.Path] = true
			}
		}
		for _, f := range res.Findings {
			if f.RuleID == "probes-equivalent" {
				checked++
				if identical[f.File+"|"+f.Path] {
					t.Errorf("%s:%d: probes-equivalent beside probes-identical at %s", f.File, f.Line, f.Path)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no probes-equivalent finding in the fixtures")
	}
}
