package main

import (
	"strings"
	"testing"
)

// TestCheckReadsAFolderInsideAChartOrOverlayAsPartOfIt runs `prodready
// check` as a process on a folder named inside a chart (its templates/)
// and one inside an overlay (its patches/). Read alone, the templates are
// not YAML (nothing was checked) and the patch is a partial Deployment the
// rules took for a whole one (its pod template "lacked" the recommended
// labels, and the fix would have written placeholders into the patch).
// Read as part of their chart and overlay, as a file named there is, the
// templates' findings are the chart's at their lines, and the patch has
// no finding of its own.
func TestCheckReadsAFolderInsideAChartOrOverlayAsPartOfIt(t *testing.T) {
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: {app: web}\n" +
		"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: ghcr.io/example/web:1.0\n"
	repo := writeRepo(t, map[string]string{
		"chart/Chart.yaml":              "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"chart/values.yaml":             "replicas: 1\n",
		"chart/templates/deploy.yaml":   deploy,
		"base/kustomization.yaml":       "resources:\n- deploy.yaml\n",
		"base/deploy.yaml":              strings.Replace(deploy, "{{ .Values.replicas }}", "3", 1),
		"overlay/kustomization.yaml":    "resources:\n- ../base\npatches:\n- path: patches/replicas.yaml\n",
		"overlay/patches/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 4\n",
	})
	templates, code := checkJSON(t, repo, "chart/templates")
	if code > 1 || len(templates) == 0 {
		t.Fatalf("check chart/templates exited %d with %d findings, want the chart's findings at its template", code, len(templates))
	}
	whole, _ := checkJSON(t, repo, "chart")
	want := 0
	for _, f := range whole {
		if strings.HasPrefix(f.File, "chart/templates/") {
			want++
		}
	}
	for _, f := range templates {
		if !strings.HasPrefix(f.File, "chart/templates/") {
			t.Errorf("check chart/templates shows a finding outside it: %s", f.key())
		}
	}
	if len(templates) != want {
		t.Errorf("check chart/templates: %d findings, want the %d the chart has there", len(templates), want)
	}
	patches, _ := checkJSON(t, repo, "overlay/patches")
	for _, f := range patches {
		if strings.HasPrefix(f.File, "overlay/patches/") {
			t.Errorf("check overlay/patches: a finding on the patch, read as a whole object: %s %s", f.key(), f.Message)
		}
	}
}
