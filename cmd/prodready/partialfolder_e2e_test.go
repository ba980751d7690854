package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
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

// TestCheckInsideAnOverlaysFolderSpellsOneFileOneWay runs `prodready
// check` and `fix --all --dry-run` as processes inside an overlay's
// patches/ folder, named as "." and as "../../overlay/patches". The
// overlay is read from the folder above, so its files were spelled
// "../patches/replicas.yaml" as read and "replicas.yaml" as the overlay's
// build named them: the patch was checked as a whole object besides (one
// object more, and a finding on the patch when named through ".."). Now
// both runs see one object, no finding on the patch, and say that the
// overlay's findings in its base, a file not named, are not shown (and
// which command shows them); fix says the same of its fixes.
func TestCheckInsideAnOverlaysFolderSpellsOneFileOneWay(t *testing.T) {
	repo := writeRepo(t, map[string]string{
		"base/kustomization.yaml": "resources:\n- deploy.yaml\n",
		"base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: web}\n" +
			"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: ghcr.io/example/web:1.0\n",
		"overlay/kustomization.yaml":    "resources:\n- ../base\npatches:\n- path: patches/replicas.yaml\n",
		"overlay/patches/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 4\n",
	})
	whole, _ := checkJSON(t, repo, "overlay")
	if len(whole) == 0 {
		t.Fatal("check overlay: no finding; the test's base should have some")
	}
	inside := filepath.Join(repo, "overlay", "patches")
	for _, named := range []string{".", "../../overlay/patches"} {
		out, errOut, code := runCLI(t, inside, "check", "--format", "json", named)
		var rep struct {
			Findings []cliFinding
			Summary  struct{ Files, Objects int }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("check %s (exit %d): %v\n%s", named, code, err, errOut)
		}
		if len(rep.Findings) != 0 || rep.Summary.Objects != 1 {
			t.Errorf("check %s inside overlay/patches: %d findings, %d objects; want none (the patch is part of the overlay, the base is not named) and the overlay's one object", named, len(rep.Findings), rep.Summary.Objects)
		}
		note := fmt.Sprintf("%d findings of overlay .. lie in files not named (../../base/deploy.yaml): `prodready check ..` shows them", len(whole))
		if !strings.Contains(errOut, note) {
			t.Errorf("check %s inside overlay/patches does not say what it leaves out; want %q in:\n%s", named, note, errOut)
		}
		_, errOut, _ = runCLI(t, inside, "fix", "--all", "--dry-run", named)
		if !strings.Contains(errOut, "`prodready fix --all ..` takes them") {
			t.Errorf("fix --all --dry-run %s inside overlay/patches does not say that fix on the overlay takes its base's findings:\n%s", named, errOut)
		}
	}
}
