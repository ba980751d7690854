package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/checkstest"
)

// writeRepo writes files under a new temporary folder that is a
// repository root (a .git folder), and returns it.
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := checkstest.WriteTree(t, files)
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCheckResolvesSiblingChartDependency runs `prodready check` as a
// process on a bitnami-shaped repository (redis depends on common, kept
// beside it): named as bitnami/redis from the root, as . from inside the
// chart and as the whole repository, redis renders with common and its
// replicas-too-few warning is on its values line, spelled as the inputs
// are; no render-failed finding says common is missing. `fix` resolves it
// the same way (it renders without a render-failed finding).
func TestCheckResolvesSiblingChartDependency(t *testing.T) {
	repo := writeRepo(t, bitnamiShaped("1"))
	for _, tc := range []struct{ dir, path, want string }{
		{repo, "bitnami/redis", "bitnami/redis/values.yaml:2 replicas-too-few"},
		{repo, ".", "bitnami/redis/values.yaml:2 replicas-too-few"},
		{filepath.Join(repo, "bitnami", "redis"), ".", "values.yaml:2 replicas-too-few"},
	} {
		fs, code := checkJSON(t, tc.dir, tc.path)
		got := byKey(fs)
		if _, ok := got[tc.want]; !ok {
			t.Errorf("check %s (in %s): no %s; got %v", tc.path, tc.dir, tc.want, keysOf(got))
		}
		for _, f := range fs {
			if f.Rule == "render-failed" || strings.HasPrefix(f.File, "..") {
				t.Errorf("check %s (in %s): %s %s:%d %s", tc.path, tc.dir, f.Rule, f.File, f.Line, f.Message)
			}
		}
		if code != 0 {
			t.Errorf("check %s (in %s) exited %d, want 0 (warnings only)", tc.path, tc.dir, code)
		}
	}
	out, errOut, code := runCLI(t, repo, "fix", "--all", "--diff", "bitnami/redis")
	if strings.Contains(out+errOut, "dependency common") || strings.Contains(out+errOut, "render-failed") || code > 1 {
		t.Errorf("fix --all --diff bitnami/redis (exit %d) did not render redis with common:\n%s\n%s", code, out, errOut)
	}
}

// TestCheckResolvesFileDependencyOutsideFolder: `check apps/redis` on a
// chart whose dependency is a file:// path leading out of the folder named
// (../../libs/common) renders it with that chart, as `helm dependency
// build` would vendor it.
func TestCheckResolvesFileDependencyOutsideFolder(t *testing.T) {
	files := map[string]string{}
	for p, data := range bitnamiShaped("1") {
		p = strings.Replace(strings.Replace(p, "bitnami/common/", "libs/common/", 1), "bitnami/redis/", "apps/redis/", 1)
		files[p] = strings.Replace(data, "oci://registry-1.docker.io/bitnamicharts", "file://../../libs/common", 1)
	}
	repo := writeRepo(t, files)
	fs, code := checkJSON(t, repo, "apps/redis")
	if _, ok := byKey(fs)["apps/redis/values.yaml:2 replicas-too-few"]; !ok || code != 0 {
		t.Errorf("exit %d, findings %v; want replicas-too-few at apps/redis/values.yaml:2 and exit 0", code, keysOf(byKey(fs)))
	}
	for _, f := range fs {
		if f.Rule == "render-failed" {
			t.Errorf("%s:%d %s", f.File, f.Line, f.Message)
		}
	}
}

// TestCheckCorpusBitnamiRedisAlone is TestCheckResolvesSiblingChartDependency
// on the real bitnami charts: `check bitnami/redis` finds common beside it.
func TestCheckCorpusBitnamiRedisAlone(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "corpus", "charts-more", "bitnami")
	if _, err := os.Stat(src); err != nil {
		t.Skip("../shared/corpus/charts-more/bitnami is absent")
	}
	repo := writeRepo(t, nil)
	copyTree(t, src, filepath.Join(repo, "bitnami"))
	fs, code := checkJSON(t, repo, "bitnami/redis")
	if _, ok := byKey(fs)["bitnami/redis/values.yaml:208 replicas-too-few"]; !ok {
		t.Errorf("no replicas-too-few at bitnami/redis/values.yaml:208 (replica.replicaCount: 1); got %v", keysOf(byKey(fs)))
	}
	for _, f := range fs {
		if f.Rule == "render-failed" {
			t.Errorf("%s:%d %s", f.File, f.Line, f.Message)
		}
	}
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

// TestUmbrellaChartWithRemoteDependency runs `prodready check` as a
// process on an umbrella chart whose kyverno dependency comes from the
// chart repository (not vendored): the missing dependency is one warning
// on its Chart.yaml line naming it, the values are still checked by the
// Kyverno rules (they fire on the defaults, at the values lines), and
// with HA values the run exits 0.
func TestUmbrellaChartWithRemoteDependency(t *testing.T) {
	chart := "apiVersion: v2\nname: platform-kyverno\nversion: 1.0.0\ndependencies:\n" +
		"- name: kyverno\n  version: 3.5.2\n  repository: https://kyverno.github.io/kyverno/\n  condition: kyverno.enabled\n"
	ha := "kyverno:\n  enabled: true\n  admissionController:\n    replicas: 3\n    container:\n      resources:\n" +
		"        limits:\n          memory: 512Mi\n        requests:\n          cpu: 100m\n          memory: 256Mi\n" +
		"  backgroundController:\n    replicas: 2\n  cleanupController:\n    replicas: 2\n  reportsController:\n    replicas: 2\n"

	repo := writeRepo(t, map[string]string{"Chart.yaml": chart, "values.yaml": "kyverno:\n  enabled: true\n"})
	fs, code := checkJSON(t, repo, ".")
	got := byKey(fs)
	if f, ok := got["Chart.yaml:5 render-failed"]; !ok || f.Severity != "warning" || !strings.Contains(f.Message, "dependency kyverno") {
		t.Errorf("want a render-failed warning naming kyverno at Chart.yaml:5; got %v", keysOf(got))
	}
	if _, ok := got["values.yaml:1 kyverno-replicas"]; !ok {
		t.Errorf("the Kyverno rules did not check the defaults: %v", keysOf(got))
	}
	if code != 0 {
		t.Errorf("defaults: exit %d, want 0 (warnings only)", code)
	}

	repo = writeRepo(t, map[string]string{"Chart.yaml": chart, "values.yaml": ha})
	fs, code = checkJSON(t, repo, ".")
	if code != 0 {
		t.Errorf("HA values: exit %d, want 0; findings %v", code, keysOf(byKey(fs)))
	}
	for _, f := range fs {
		if f.Rule != "render-failed" {
			t.Errorf("HA values: %s:%d %s %s", f.File, f.Line, f.Rule, f.Message)
		}
	}
	if _, code = checkJSON(t, repo, ".", "--fail-on", "warning"); code != 1 {
		t.Errorf("HA values with --fail-on warning: exit %d, want 1 (the missing dependency is a warning)", code)
	}
}

// keysOf lists a finding map's keys, for messages.
func keysOf(m map[string]cliFinding) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
