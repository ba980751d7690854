package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/testconfig"
	"github.com/prodready/prodready/internal/testmanifest"
)

// TestNamespacePaths: each namespace maps to every path with an object of
// it, whether a file's objects share one namespace, change namespace and
// come back to one, or have none.
func TestNamespacePaths(t *testing.T) {
	file := func(path string, namespaces ...string) *manifest.File {
		f := &manifest.File{Path: path}
		for _, ns := range namespaces {
			f.Objects = append(f.Objects, &manifest.Object{Namespace: ns, File: f})
		}
		return f
	}
	res := &checks.Result{Files: []*manifest.File{
		file("a.yaml", "shop", "shop", "shop"),
		file("b.yaml", "shop", "web", "shop", "", "web"),
		file("c.yaml"),
		file("d.yaml", "", ""),
		file("e.yaml", "web"),
	}}
	want := map[string]map[string]bool{
		"shop": {"a.yaml": true, "b.yaml": true},
		"web":  {"b.yaml": true, "e.yaml": true},
		"":     {"b.yaml": true, "d.yaml": true},
	}
	if d := cmp.Diff(want, namespacePaths(res)); d != "" {
		t.Errorf("namespacePaths (-want +got):\n%s", d)
	}
	if got := namespacePaths(nil); len(got) != 0 {
		t.Errorf("namespacePaths(nil) = %v, want empty", got)
	}
}

// TestPrepareClassifiesInEachReportMode holds what a review lists in each
// report mode, at a first review and at a push that reuses the base's run:
// a finding the base has in a changed file (pre-existing: reported with
// touched and all), one it has in a file not changed (reported with all
// only), a new one (always) and a fixed one.
func TestPrepareClassifiesInEachReportMode(t *testing.T) {
	deploy := func(name, liveness, readiness string) string {
		return strings.Replace(testmanifest.ProbeDeployment(liveness, readiness), "name: web\n", "name: "+name+"\n", 1)
	}
	type at struct {
		File string
		Line int
	}
	list := func(fs []checks.Finding) []at {
		var out []at
		for _, f := range fs {
			out = append(out, at{f.File, f.Line})
		}
		return out
	}
	for mode, want := range map[string][]at{
		"new":     {{"app/a.yaml", 20}},
		"touched": {{"app/a.yaml", 17}, {"app/a.yaml", 20}},
		"all":     {{"app/a.yaml", 17}, {"app/a.yaml", 20}, {"app/b.yaml", 17}},
	} {
		t.Run(mode, func(t *testing.T) {
			cfg := testconfig.OnlyRule("probe-named-port-undeclared") + "review: {report: " + mode + "}\n"
			h := &memHost{
				blobSHAs: true,
				refs: map[string]map[string]string{
					"base": {".prodready.yaml": cfg, "app/a.yaml": deploy("a", "metrics", "8080"), "app/b.yaml": deploy("b", "metrics", ""), "app/c.yaml": deploy("c", "metrics", "")},
					"head": {".prodready.yaml": cfg, "app/a.yaml": deploy("a", "metrics", "health"), "app/b.yaml": deploy("b", "metrics", ""), "app/c.yaml": deploy("c", "8080", "")},
				},
				changed: []ChangedFile{{Path: "app/a.yaml", Status: "modified"}, {Path: "app/c.yaml", Status: "modified"}},
			}
			rv := NewReviewer(NewLRUCache(64<<20), nil)
			rv.RememberFindings = true
			pr := PullRequest{Repo: "o/r", Number: 1, BaseSHA: "base", HeadSHA: "head"}
			for push := range 2 {
				r, err := rv.Prepare(context.Background(), h, pr, nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, list(r.Findings)); d != "" {
					t.Errorf("review %d: findings (-want +got):\n%s", push+1, d)
				}
				if d := cmp.Diff([]at{{"app/a.yaml", 20}}, list(r.New)); d != "" {
					t.Errorf("review %d: new (-want +got):\n%s", push+1, d)
				}
				if d := cmp.Diff([]at{{"app/a.yaml", 17}}, list(r.PreExisting)); d != "" {
					t.Errorf("review %d: pre-existing (-want +got):\n%s", push+1, d)
				}
				if d := cmp.Diff([]at{{"app/c.yaml", 17}}, list(r.Fixed)); d != "" {
					t.Errorf("review %d: fixed (-want +got):\n%s", push+1, d)
				}
			}
		})
	}
}
