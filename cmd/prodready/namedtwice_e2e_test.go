package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/checkstest"
)

// TestCheckReadsAFileNamedTwiceOnce runs `prodready check` as a process
// with a file named along with its folder, or twice, as a pre-commit hook
// or a shell glob passes them: each file is read and reported once. And a
// chart named whole along with one of its files (`check web
// web/values.yaml`) is checked whole, as `check web` checks it, not
// dropped for the file named; named twice (`check web ./web/`), it is
// rendered once.
func TestCheckReadsAFileNamedTwiceOnce(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		"app/web.yaml":                  spreadDeployment("web"),
		"web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":               "replicaCount: 1\n",
		"web/templates/deployment.yaml": strings.Replace(spreadDeployment("web"), "  replicas: 3\n", "  replicas: {{ .Values.replicaCount }}\n", 1),
	})
	for _, tc := range []struct {
		alone []string
		named [][]string
	}{
		{[]string{"app/web.yaml"}, [][]string{{"app", "app/web.yaml"}, {"app/web.yaml", "app/web.yaml"}, {"app/web.yaml", "./app/web.yaml"}}},
		{[]string{"web"}, [][]string{{"web", "web/values.yaml"}, {"web/values.yaml", "web"}, {"web/", "web/templates/deployment.yaml"}, {"web", "./web/"}}},
	} {
		want, _, _ := runCLI(t, dir, append([]string{"check", "-o", "json"}, tc.alone...)...)
		if !strings.Contains(want, `"rule"`) {
			t.Fatalf("check %v finds nothing:\n%s", tc.alone, want)
		}
		for _, named := range tc.named {
			got, _, _ := runCLI(t, dir, append([]string{"check", "-o", "json"}, named...)...)
			if got != want {
				t.Errorf("check %v:\n%s\nwant what check %v reports:\n%s", named, got, tc.alone, want)
			}
		}
	}
}

// TestCheckFromAChartsTemplatesFolder runs `prodready check .` as a
// process inside a chart's templates folder, outside any repository: the
// chart is found above the current folder and rendered, as from inside a
// repository, and no template is read as plain YAML (a yaml-invalid error
// on its first action).
func TestCheckFromAChartsTemplatesFolder(t *testing.T) {
	dir := checkstest.WriteTree(t, map[string]string{
		"web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":               "replicaCount: 1\n",
		"web/templates/deployment.yaml": strings.Replace(spreadDeployment("web"), "  replicas: 3\n", "  replicas: {{ .Values.replicaCount }}\n", 1),
	})
	out, errOut, _ := runCLI(t, filepath.Join(dir, "web", "templates"), "check", "-o", "json", ".")
	if strings.Contains(out, "yaml-invalid") || !strings.Contains(out, `"recommended-labels-missing"`) || !strings.Contains(out, "(rendered from the chart ..)") {
		t.Errorf("check . in web/templates:\n%s\n%s\nwant the chart rendered", out, errOut)
	}
	// The values file's findings lie outside the folder named, and are
	// said to.
	if !strings.Contains(errOut, "lies in files not named (../values.yaml)") {
		t.Errorf("check . in web/templates does not say where the rest lie:\n%s", errOut)
	}
}

// TestCheckOverlayOutsideARepository runs `prodready check overlays/prod`
// as a process from the folder that holds the overlay and its base,
// outside any repository: the overlay is built from the current folder,
// as it is from a repository's root, and not refused as reaching outside.
func TestCheckOverlayOutsideARepository(t *testing.T) {
	dir := checkstest.WriteTree(t, map[string]string{
		"base/kustomization.yaml":          "resources:\n- web.yaml\n",
		"base/web.yaml":                    spreadDeployment("web"),
		"overlays/prod/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: replicas.yaml\n",
		"overlays/prod/replicas.yaml":      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n",
	})
	out, errOut, _ := runCLI(t, dir, "check", "-o", "json", "overlays/prod")
	if strings.Contains(out, "render-failed") || !strings.Contains(out, `"replicas-too-few"`) {
		t.Errorf("check overlays/prod outside a repository:\n%s\n%s\nwant the overlay built, its replicas: 1 found", out, errOut)
	}
}
