package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// TestServeReviewsAFileATruncatedTreeLeftOut runs serve as a process,
// with the flags deploy/ uses, against the fake GitHub on a pull request
// of a repository whose recursive tree listing GitHub truncates before
// the file the pull request changes: the review lists the tree folder by
// folder and comments on that file, as it does when nothing is cut.
func TestServeReviewsAFileATruncatedTreeLeftOut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes; skipped with -short")
	}
	repo := func(port string) map[string]string {
		return map[string]string{
			".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared"),
			"a/one.yaml":      replicaManifest("http"),
			"b/two.yaml":      replicaManifest("http"),
			"c/three.yaml":    replicaManifest("http"),
			"z/web.yaml":      replicaManifest(port),
		}
	}
	fake := reviewOpenedWith(t, repo("http"), repo("web-http"), func(fake *fakegithub.Server) {
		fake.TreeLimit = 3 // the recursive listing stops before z/
	})
	cm := onlyComment(t, fake)
	if cm.Path != "z/web.yaml" || !strings.Contains(cm.Body, "`probe-named-port-undeclared`") {
		t.Errorf("comment = %s:%d\n%s\nwant probe-named-port-undeclared on z/web.yaml", cm.Path, cm.Line, cm.Body)
	}
}

// TestServeRendersAChartPastGitHubsFileCap runs serve as a process against
// the fake GitHub on a pull request that changes more files than GitHub's
// file listing gives, a chart's values among the ones it leaves out: the
// review finds the others from the trees, renders the chart, and reports
// the finding the values change brings, caused by that change (the
// values file, listed without a patch, has no line to comment on).
func TestServeRendersAChartPastGitHubsFileCap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes; skipped with -short")
	}
	repo := func(version, tag string) map[string]string {
		files := map[string]string{
			".prodready.yaml":              testconfig.OnlyRule("image-tag-mutable"),
			"zz/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
			"zz/values.yaml":               "image:\n  tag: \"" + tag + "\"\n",
			"zz/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: \"ghcr.io/acme/web:{{ .Values.image.tag }}\"\n",
		}
		for i := range 3000 {
			files[fmt.Sprintf("a/cm%04d.yaml", i)] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm%04d\ndata:\n  version: %q\n", i, version)
		}
		return files
	}
	fake := reviewOpenedWith(t, repo("1", "1.0.0"), repo("2", "latest"), nil) // GitHub's listing stops before zz/
	var text string
	for _, run := range fake.CheckRuns("acme", "web") {
		if run.HeadSHA == headSHA(0) && run.Status == "completed" {
			text = run.Summary + run.Text
		}
	}
	if !strings.Contains(text, "`image-tag-mutable`") || !strings.Contains(text, "rendered from the chart zz") ||
		!strings.Contains(text, "caused by the change to `zz/values.yaml`)") {
		t.Errorf("check run:\n%s\nwant image-tag-mutable in chart zz, new, caused by the change to zz/values.yaml", text)
	}
}
