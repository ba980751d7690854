package main

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testconfig"
)

// sharedOverlayBase is a base two overlays build: a Deployment without
// replicas and its Service. The repository's root kustomization leaves
// them unset; overlays/b patches them to 3. Only the root's build is
// short of replicas, and a fix of the base's line would raise b's too:
// its fix is a patch appended to the root kustomization (whose folder
// holds b's, as microservices-demo's holds its tests' overlays). comment
// is written after the base's spec: (line 7), where check reports
// replicas-too-few.
func sharedOverlayBase(config, comment string) map[string]string {
	return map[string]string{
		".prodready.yaml":         config,
		"base/kustomization.yaml": "resources:\n  - deploy.yaml\n",
		"base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\nspec:" + comment + "\n" +
			"  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n" +
			"        - name: web\n          image: nginx:1.27.0\n          ports:\n            - containerPort: 8080\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n    - port: 80\n      targetPort: 8080\n",
		"kustomization.yaml": "resources:\n  - base\n",
		"overlays/b/kustomization.yaml": "resources:\n  - ../../base\npatches:\n  - target:\n      kind: Deployment\n      name: web\n" +
			"    patch: |-\n      - op: add\n        path: /spec/replicas\n        value: 3\n",
	}
}

// singleReplicaChart is a chart whose Deployment, behind a Service, runs
// replicaCount pods; comment is written after values.yaml's replicaCount.
func singleReplicaChart(comment string) map[string]string {
	return map[string]string{
		".prodready.yaml":   testconfig.OnlyRules("replicas-too-few", "pdb-missing"),
		"chart/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"chart/values.yaml": "replicaCount: 1" + comment + "\n",
		"chart/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicaCount }}\n" +
			"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n" +
			"      - name: web\n        image: ghcr.io/acme/web:1.0\n        ports: [{containerPort: 8080}]\n",
		"chart/templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n",
	}
}

// TestCheckDropsThePDBAnIgnoredReplicasFixWouldBring runs check as a
// process on a chart and on an overlay whose single replica is ignored
// where check reports it (values.yaml's replicaCount, the base's spec:).
// pdb-missing anticipates the replicas-too-few fix (three pods behind a
// Service) only while that fix is offered: an ignore in a render's source
// is read after the rules ran, and the anticipation stayed, claiming a
// fix the author had declined.
func TestCheckDropsThePDBAnIgnoredReplicasFixWouldBring(t *testing.T) {
	const anticipates = "once the replicas-too-few fix (replicas: 3) is applied"
	fs, _ := checkJSON(t, writeRepo(t, singleReplicaChart("")), "chart")
	if n := countRules(fs); n["replicas-too-few"] != 1 || n["pdb-missing"] != 1 || !strings.Contains(byRule(fs, "pdb-missing").Message, anticipates) {
		t.Fatalf("chart findings = %+v, want replicas-too-few and the pdb-missing its fix brings", fs)
	}
	if fs, _ := checkJSON(t, writeRepo(t, singleReplicaChart(" # prodready:ignore replicas-too-few one writer by design")), "chart"); len(fs) != 0 {
		t.Errorf("chart with the replicas ignored: %+v, want none", fs)
	}

	config := testconfig.OnlyRules("replicas-too-few", "pdb-missing")
	fs, _ = checkJSON(t, writeRepo(t, sharedOverlayBase(config, "")), ".")
	if n := countRules(fs); n["replicas-too-few"] != 1 || !anyContains(fs, anticipates) {
		t.Fatalf("overlay findings = %+v, want replicas-too-few and the pdb-missing its fix brings", fs)
	}
	fs, _ = checkJSON(t, writeRepo(t, sharedOverlayBase(config, " # prodready:ignore replicas-too-few one pod is enough where no overlay says more")), ".")
	if n := countRules(fs); n["replicas-too-few"] != 0 || n["pdb-missing"] != 1 || anyContains(fs, anticipates) {
		t.Errorf("overlays with the replicas ignored: %+v, want only overlay b's pdb-missing (its own three pods)", fs)
	}
}

// byRule is the first of fs of rule, or a zero finding.
func byRule(fs []cliFinding, rule string) cliFinding {
	for _, f := range fs {
		if f.Rule == rule {
			return f
		}
	}
	return cliFinding{}
}

// anyContains reports whether a finding of fs says s.
func anyContains(fs []cliFinding, s string) bool {
	for _, f := range fs {
		if strings.Contains(f.Message, s) {
			return true
		}
	}
	return false
}

// TestServeCountsTheAnticipatedPDBWithAnIgnoreItDoesNotTrust runs serve
// as a process on pull requests that ignore a single replica: in a
// chart's values.yaml, and in a plain manifest. An ignore a pull request
// adds does not count unless the base's config says so: the review grades
// replicas-too-few as if it were not there, and the pdb-missing its fix
// brings with it. It reported that pdb-missing as fixed by the pull
// request (the rule left it out when the replicas finding was ignored).
func TestServeCountsTheAnticipatedPDBWithAnIgnoreItDoesNotTrust(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes; skipped with -short")
	}
	const ignore = " # prodready:ignore replicas-too-few one writer by design"
	plain := func(comment string) map[string]string {
		config := testconfig.OnlyRules("replicas-too-few", "pdb-missing")
		return map[string]string{".prodready.yaml": config, "deploy/web.yaml": sharedOverlayBase(config, comment)["base/deploy.yaml"]}
	}
	for _, tc := range []struct {
		name       string
		base, head map[string]string
	}{
		{"chart", singleReplicaChart(""), singleReplicaChart(ignore)},
		{"plain", plain(""), plain(ignore)},
	} {
		fake := reviewOpened(t, tc.base, tc.head)
		run, _ := runOn(fake, headSHA(0))
		if !strings.Contains(run.Summary, "**0 fixed**") || !strings.Contains(run.Summary, "- `replicas-too-few` on Deployment `web`, ignored by this pull request") ||
			!strings.Contains(run.Summary, "- `pdb-missing` on Deployment `web`, ignored by this pull request") {
			t.Errorf("%s: check run %q, summary:\n%s\nwant nothing fixed, and both findings counted as ignored by the pull request", tc.name, run.Title, run.Summary)
		}
	}
}
