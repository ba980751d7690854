package main

import (
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
