package cli

import (
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/checks/checkstest"
)

// TestRootFinderAsUncached holds rootFinder's remembered answers (the
// repository root shared along the walk up, the absolute path from the
// folder read once) to asking the file system each time: a repository
// with a chart and an overlay in it, a folder outside any repository,
// asked in an order where a deep folder comes before its parents.
func TestRootFinderAsUncached(t *testing.T) {
	files := map[string]string{
		"repo/.git":                                   "gitdir: elsewhere\n",
		"repo/charts/app/Chart.yaml":                  "name: app\n",
		"repo/charts/app/templates/deploy.yaml":       "kind: Deployment\n",
		"repo/charts/app/charts/sub/Chart.yaml":       "name: sub\n",
		"repo/charts/app/charts/sub/templates/x.yaml": "kind: Service\n",
		"repo/deploy/base/kustomization.yaml":         "resources: [a.yaml]\n",
		"repo/deploy/base/a.yaml":                     "kind: Service\n",
		"repo/plain/deep/down/b.yaml":                 "kind: Service\n",
		"loose/c.yaml":                                "kind: Service\n",
	}
	top := checkstest.WriteTree(t, files)
	repo := filepath.Join(top, "repo")
	t.Chdir(repo)
	asked := []string{
		"charts/app/charts/sub/templates/x.yaml", "plain/deep/down/b.yaml", "deploy/base/a.yaml",
		"charts/app/templates/deploy.yaml", filepath.Join(top, "loose", "c.yaml"), "../loose/c.yaml",
	}
	want := map[string]string{
		"charts/app/charts/sub/templates/x.yaml": "charts/app", "plain/deep/down/b.yaml": "",
		"deploy/base/a.yaml": "deploy/base", "charts/app/templates/deploy.yaml": "charts/app",
		filepath.Join(top, "loose", "c.yaml"): "", "../loose/c.yaml": "",
	}
	f := newRootFinder()
	for _, p := range asked {
		if got := f.renderRootOf(p); got != filepath.FromSlash(want[p]) {
			t.Errorf("renderRootOf(%q) = %q, want %q", p, got, want[p])
		}
		abs, _ := filepath.Abs(p)
		for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
			if got, want := f.repositoryRoot(dir), repositoryRoot(dir); got != want {
				t.Errorf("repositoryRoot(%q) = %q, asked each time %q", dir, got, want)
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
		if got, _ := f.abs(p); got != abs {
			t.Errorf("abs(%q) = %q, filepath.Abs %q", p, got, abs)
		}
	}
}

// TestWithin: a path is within a folder by its place, not its spelling:
// "../../base" is not under "..", the folder a run started in a chart's or
// overlay's subfolder names its chart or overlay by.
func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		p, dir string
		want   bool
	}{
		{"a/b.yaml", "a", true},
		{"ab.yaml", "a", false},
		{"a", "a", true},
		{"x.yaml", ".", true},
		{"../x.yaml", ".", false},
		{"../x.yaml", "..", true},
		{"..", "..", true},
		{"../../base/deploy.yaml", "..", false},
		{"../..", "..", false},
		{"../../base/deploy.yaml", "../..", true},
		{"x.yaml", "..", true}, // the current folder is in its parent
		{"patches/x.yaml", "../..", true},
		{"/abs/x.yaml", "..", false},
		{"..x/y.yaml", ".", true},
		{"/repo/a/b.yaml", "/repo/a", true},
	} {
		if got := within(tc.p, tc.dir); got != tc.want {
			t.Errorf("within(%q, %q) = %v, want %v", tc.p, tc.dir, got, tc.want)
		}
	}
}
