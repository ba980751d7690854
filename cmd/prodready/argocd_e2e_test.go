package main

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// TestCheckRendersEveryArgoCDRoot runs `prodready check` as a process on
// argo-cd's manifests (every kustomization, base, patch and CRD folder of
// its manifests/): every root overlay renders, however busy the machine
// (renders are bounded by their CPU time, and the HA overlays hit a 10 s
// wall-clock limit on 2 busy cores), and the one chart whose dependency
// comes from a chart repository (ha/base/redis-ha/chart) is a warning
// naming it, not an error.
func TestCheckRendersEveryArgoCDRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every argo-cd overlay; skipped with -short")
	}
	src := filepath.Join("..", "..", "..", "shared", "corpus", "charts-more", "kustomize", "argo-cd-manifests")
	if _, err := os.Stat(src); err != nil {
		t.Skip("../shared/corpus/charts-more/kustomize/argo-cd-manifests is absent")
	}
	repo := writeRepo(t, nil)
	copyTree(t, src, filepath.Join(repo, "manifests"))
	fs, _ := checkJSON(t, repo, ".")
	for _, f := range fs {
		if f.Rule != "render-failed" {
			continue
		}
		if f.File == "manifests/ha/base/redis-ha/chart/Chart.yaml" && f.Severity == "warning" && strings.Contains(f.Message, "dependency redis-ha") {
			continue
		}
		t.Errorf("%s:%d %s: %s", f.File, f.Line, f.Severity, f.Message)
	}
	overlays := map[string]bool{}
	for _, f := range fs {
		if i := strings.Index(f.Message, "(rendered from the overlay "); i >= 0 {
			// One overlay, or several a finding on a shared base line names.
			rest := f.Message[i+len("(rendered from the overlay "):]
			list := strings.FieldsFunc(rest, func(r rune) bool { return r == ')' || r == ';' })[0]
			for _, o := range strings.Split(list, ", the overlay ") {
				overlays[o] = true
			}
		}
	}
	files, err := rendered.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	roots := rendered.Discover(files).Kustomizations
	if len(roots) < 5 {
		t.Fatalf("%d root overlays found, want argo-cd's (the *-install-with-hydrator ones, dev-tilt, …): %v", len(roots), roots)
	}
	for _, k := range roots {
		if !overlays[path.Dir(k)] {
			t.Errorf("no finding rendered from the root overlay %s; overlays seen: %v", path.Dir(k), overlays)
		}
	}
}
