package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testconfig"
)

// replicasChart is a chart whose Deployment takes its replicas from
// values.yaml (line 1, "replicaCount: " then replicas) and spreads
// nothing; hpa adds an HPA that scales it from two pods.
func replicasChart(replicas string, hpa bool) map[string]string {
	files := map[string]string{
		".prodready.yaml":   testconfig.OnlyRule("spread-missing"),
		"chart/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"chart/values.yaml": "replicaCount: " + replicas + "\nimage: ghcr.io/acme/web:1.0\n",
		"chart/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" +
			"  replicas: {{ .Values.replicaCount }}\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n" +
			"      - name: web\n        image: {{ .Values.image }}\n",
	}
	if hpa {
		files["chart/templates/hpa.yaml"] = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n" +
			"  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n  maxReplicas: 5\n"
	}
	return files
}

// TestServeCommentsOnTheReplicasLineThatBringsAFinding runs serve as a
// process on a pull request that raises the chart's replicaCount from 1
// to 3 in values.yaml. spread-missing is on the template's pod spec,
// which the pull request does not change (it was an annotation there);
// the review comments where the author raised the replicas, names the
// template line, and has no suggestion: its fix edits the template.
func TestServeCommentsOnTheReplicasLineThatBringsAFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	cm := onlyComment(t, reviewOpened(t, replicasChart("1", false), replicasChart("3", false)))
	if cm.Path != "chart/values.yaml" || cm.Line != 1 ||
		!strings.Contains(cm.Body, "`spread-missing`") ||
		!strings.Contains(cm.Body, "(at line 10 of `chart/templates/deployment.yaml`: this line's value brings it about)") ||
		!strings.Contains(cm.Body, "(not a suggestion here: it edits `chart/templates/deployment.yaml`, which this pull request does not change)") ||
		strings.Contains(cm.Body, "```suggestion") {
		t.Errorf("comment = %s:%d\n%s\nwant one at chart/values.yaml:1 that names the template line, without a suggestion", cm.Path, cm.Line, cm.Body)
	}
}

// TestCheckHonoursAnIgnoreOnTheReplicasLine runs check as a process: an
// ignore on the replicaCount line, where a review comments on the spread
// that line asks for, silences it; not when an HPA scales the Deployment,
// whose minReplicas, not that line, makes it run several pods.
func TestCheckHonoursAnIgnoreOnTheReplicasLine(t *testing.T) {
	const ignored = "3 # prodready:ignore spread-missing the scheduler's profile spreads it"
	for _, tc := range []struct {
		replicas string
		hpa      bool
		want     int
	}{
		{"3", false, 1},
		{ignored, false, 0},
		{ignored, true, 1},
	} {
		fs, _ := checkJSON(t, writeRepo(t, replicasChart(tc.replicas, tc.hpa)), "chart")
		if len(fs) != tc.want {
			t.Errorf("replicaCount: %s, HPA %v: %+v, want %d spread-missing", tc.replicas, tc.hpa, fs, tc.want)
		}
		for _, f := range fs {
			if f.Rule != "spread-missing" || f.File != "chart/templates/deployment.yaml" || f.Line != 10 {
				t.Errorf("replicaCount: %s, HPA %v: %s at %s:%d, want spread-missing at chart/templates/deployment.yaml:10", tc.replicas, tc.hpa, f.Rule, f.File, f.Line)
			}
		}
	}
}

// replicasOverlay is an overlay whose replicas: entry (line 5 of
// prod/kustomization.yaml) sets the count of a served base Deployment
// that writes none.
func replicasOverlay(count string, rules ...string) map[string]string {
	return map[string]string{
		".prodready.yaml":         testconfig.OnlyRules(rules...),
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n- service.yaml\n",
		"base/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" +
			"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n" +
			"      - name: web\n        image: ghcr.io/acme/web:1.0\n        ports: [{containerPort: 8080}]\n",
		"base/service.yaml":       "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n",
		"prod/kustomization.yaml": "resources:\n- ../base\nreplicas:\n- name: web\n  count: " + count + "\n",
	}
}

// TestCheckAndFixTheCountOfAReplicasEntry runs check and fix as processes
// on an overlay whose replicas: entry runs one pod of a served
// Deployment: replicas-too-few is at the entry's count (it was not
// reported at all: the entry was taken for an override of the rendered
// object's replicas, which the build had already applied), and fix sets
// that count, which is what the build applies.
func TestCheckAndFixTheCountOfAReplicasEntry(t *testing.T) {
	dir := writeRepo(t, replicasOverlay("1", "replicas-too-few"))
	fs, _ := checkJSON(t, dir, "prod")
	if len(fs) != 1 || fs[0].Rule != "replicas-too-few" || fs[0].File != "prod/kustomization.yaml" || fs[0].Line != 5 {
		t.Fatalf("findings = %+v, want replicas-too-few at prod/kustomization.yaml:5", fs)
	}
	if _, errOut, code := runCLI(t, dir, "fix", "--all", "--rule", "replicas-too-few", "prod"); code != 0 {
		t.Fatalf("fix: exit %d\n%s", code, errOut)
	}
	got := readFile(t, filepath.Join(dir, "prod", "kustomization.yaml"))
	if want := replicasOverlay("3")["prod/kustomization.yaml"]; got != want {
		t.Errorf("prod/kustomization.yaml after fix:\n%s\nwant:\n%s", got, want)
	}
	if fs, _ := checkJSON(t, dir, "prod"); len(fs) != 0 {
		t.Errorf("after the fix: %+v, want none", fs)
	}
}

// TestServeCommentsOnTheReplicasEntryThatBringsAFinding runs serve as a
// process on a pull request that raises an overlay's replicas: entry
// from 1 to 3: spread-missing, on the base's pod spec, is commented on
// the count line the pull request changed.
func TestServeCommentsOnTheReplicasEntryThatBringsAFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	cm := onlyComment(t, reviewOpened(t, replicasOverlay("1", "spread-missing"), replicasOverlay("3", "spread-missing")))
	if cm.Path != "prod/kustomization.yaml" || cm.Line != 5 ||
		!strings.Contains(cm.Body, "`spread-missing`") ||
		!strings.Contains(cm.Body, "(at line 9 of `base/deployment.yaml`: this line's value brings it about)") ||
		strings.Contains(cm.Body, "```suggestion") {
		t.Errorf("comment = %s:%d\n%s\nwant one at prod/kustomization.yaml:5 that names the base line, without a suggestion", cm.Path, cm.Line, cm.Body)
	}
}

// TestServeCommentsOnTheReplicasLineOfTheSameFile runs serve as a process
// on pull requests that raise a Deployment's replicas from 1 to 3 and
// change its image a dozen lines below (aks-store-demo's store-front), in
// a kustomize base and in a plain manifest. spread-missing is on the pod
// spec, which the pull request does not change: its thread went on an
// unchanged line beside the image's old line (the base's), which has
// nothing to do with it, or to the check run's annotations (the plain
// file's); it is on the replicas line, and says where the finding is.
func TestServeCommentsOnTheReplicasLineOfTheSameFile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes; skipped with -short")
	}
	repo := func(kustomize bool, replicas, tag string) map[string]string {
		files := map[string]string{
			".prodready.yaml": testconfig.OnlyRule("spread-missing"),
			"base/web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: " + replicas + "\n" +
				"  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n" +
				"      containers:\n        - name: web\n          image: ghcr.io/acme/web:" + tag + "\n          ports:\n            - containerPort: 8080\n",
		}
		if kustomize {
			files["base/kustomization.yaml"] = "resources:\n- web.yaml\n"
		}
		return files
	}
	for _, kustomize := range []bool{true, false} {
		cm := onlyComment(t, reviewOpened(t, repo(kustomize, "1", "1.0"), repo(kustomize, "3", "1.1")))
		if cm.Path != "base/web.yaml" || cm.Line != 6 || !strings.Contains(cm.Body, "`spread-missing`") ||
			!strings.Contains(cm.Body, "It is at line 14; this line's value brings it about.") {
			t.Errorf("kustomize %v: comment = %s:%d\n%s\nwant one at base/web.yaml:6 that names line 14", kustomize, cm.Path, cm.Line, cm.Body)
		}
	}
}

// TestCheckHonoursAnIgnoreOnTheReplicasLineOfAManifest runs check as a
// process on a plain manifest whose replicas: 3 line ignores the spread it
// asks for, as a chart's replicaCount line does: a review comments on that
// line when a pull request raises it.
func TestCheckHonoursAnIgnoreOnTheReplicasLineOfAManifest(t *testing.T) {
	manifest := func(comment string) map[string]string {
		return map[string]string{
			".prodready.yaml": testconfig.OnlyRule("spread-missing"),
			"web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3" + comment + "\n" +
				"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n" +
				"      - name: web\n        image: ghcr.io/acme/web:1.0\n",
		}
	}
	if fs, _ := checkJSON(t, writeRepo(t, manifest("")), "."); len(fs) != 1 || fs[0].Rule != "spread-missing" || fs[0].Line != 10 {
		t.Fatalf("findings = %+v, want spread-missing at web.yaml:10", fs)
	}
	if fs, _ := checkJSON(t, writeRepo(t, manifest(" # prodready:ignore spread-missing the scheduler's profile spreads it")), "."); len(fs) != 0 {
		t.Errorf("with the ignore on the replicas line: %+v, want none", fs)
	}
}
