// Package testrepo holds the repository the reviewers' rendering tests
// push to the fake hosts: fixtures/render/review (two Helm charts, a
// kustomize base with two overlays, a plain manifest), and the changes
// their pull requests make to it.
package testrepo

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/internal/testconfig"
)

// Rules are the rules the repository's config keeps on, so a test can
// state the exact review.
var Rules = []string{"readiness-probe-missing", "replicas-too-few", "render-failed"}

// Base returns the files of fixtures/render/review by repository path,
// with a .prodready.yaml keeping Rules on.
func Base(t testing.TB) map[string]string {
	t.Helper()
	root := filepath.Join(checkstest.Root(t), "fixtures", "render", "review")
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	files[".prodready.yaml"] = testconfig.OnlyRules(Rules...)
	return files
}

// Edit returns a copy of files with old replaced by new in file p; the
// test fails when p does not hold old.
func Edit(t testing.TB, files map[string]string, p, old, new string) map[string]string {
	t.Helper()
	if !strings.Contains(files[p], old) {
		t.Fatalf("%s does not hold %q", p, old)
	}
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[k] = v
	}
	out[p] = strings.Replace(files[p], old, new, 1)
	return out
}

// WebProbe is the readinessProbe of charts/web's deployment template.
const WebProbe = "          readinessProbe:\n            httpGet:\n              path: /healthz\n              port: {{ .Values.port }}\n"

// APIProbe is the readinessProbe of the kustomize base's deployment.
const APIProbe = "          readinessProbe:\n            httpGet:\n              path: /ready\n              port: 8080\n"

// HelmChange is the head of a pull request changing charts/web: one
// replica in values.yaml, the readinessProbe removed from the template.
func HelmChange(t testing.TB, base map[string]string) map[string]string {
	head := Edit(t, base, "charts/web/values.yaml", "replicaCount: 2", "replicaCount: 1")
	return Edit(t, head, "charts/web/templates/deployment.yaml", WebProbe, "")
}

// BaseChange is the head of a pull request changing the kustomize base:
// one replica, the readinessProbe removed. Both overlays build on it; the
// staging one patches replicas to 3.
func BaseChange(t testing.TB, base map[string]string) map[string]string {
	head := Edit(t, base, "kustomize/base/deployment.yaml", "replicas: 2", "replicas: 1")
	return Edit(t, head, "kustomize/base/deployment.yaml", APIProbe, "")
}

// BrokenChange is the head of a pull request that breaks charts/broken:
// its values lose service.name, which its template requires.
func BrokenChange(t testing.TB, base map[string]string) map[string]string {
	return Edit(t, base, "charts/broken/values.yaml", "service:\n  name: api\n", "service: {}\n")
}
