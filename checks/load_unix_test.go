//go:build unix

package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
)

// TestListSaysWhatAFolderHoldsThatIsNotAFile checks that a walked
// folder's symbolic links and pipes with a YAML name are neither followed
// nor read, and each is a file not checked that says why; that a link
// named on its own is read through; and that the rest is checked.
func TestListSaysWhatAFolderHoldsThatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	naked := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n"
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(naked), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pod.yaml", filepath.Join(dir, "link.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink("pod.yaml", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	cfg := checks.DefaultConfig(catalog.Default())
	inputs, err := checks.List([]string{dir}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := checks.Run(inputs, cfg, checks.Options{Memory: checks.Lean})
	skipped := map[string]string{}
	objects := map[string]int{}
	for _, f := range res.Files {
		skipped[filepath.Base(f.Path)] = f.Skipped
		objects[filepath.Base(f.Path)] = len(f.Objects)
	}
	if len(res.Files) != 3 {
		t.Errorf("files: %v, want pod.yaml, link.yaml and pipe.yaml (link.txt is no YAML)", skipped)
	}
	if !strings.Contains(skipped["link.yaml"], "a symbolic link: links are not followed") {
		t.Errorf("link.yaml: %q, want it not checked as a link", skipped["link.yaml"])
	}
	if !strings.Contains(skipped["pipe.yaml"], "not a regular file") {
		t.Errorf("pipe.yaml: %q, want it not checked as no regular file", skipped["pipe.yaml"])
	}
	nakedAt := map[string]bool{}
	for _, f := range res.Findings {
		if f.RuleID == "naked-pod" {
			nakedAt[filepath.Base(f.File)] = true
		}
	}
	if !nakedAt["pod.yaml"] || len(nakedAt) != 1 {
		t.Errorf("naked-pod in %v, want pod.yaml alone", nakedAt)
	}
	// Named on its own, the link is read through.
	named, err := checks.Load([]string{filepath.Join(dir, "link.yaml")}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(named) != 1 || string(named[0].Data) != naked {
		t.Errorf("the link named: %+v, want the pod's text", named)
	}
}
