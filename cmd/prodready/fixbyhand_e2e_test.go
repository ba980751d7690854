package main

import (
	"strings"
	"testing"
)

// TestFixSaysWhichFixesAreForAHandEdit runs `prodready check` and `prodready
// fix` as processes on a chart whose replicas a template computes
// (`{{ div .Values.slots 2 }}`): check describes the fix (replicas: 3),
// which no values key takes as it is, so fix cannot write it. fix says so
// in its summary, as a fix to make by hand, not as a finding without a fix
// that sends the reader back to check, and --dry-run lists it where the
// author makes it.
func TestFixSaysWhichFixesAreForAHandEdit(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		"web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":               "slots: 2\n",
		"web/templates/deployment.yaml": strings.Replace(spreadDeployment("web"), "  replicas: 3\n", "  replicas: {{ div .Values.slots 2 }}\n", 1),
	})
	out, _, _ := runCLI(t, dir, "check", "-o", "wide", "web")
	if !strings.Contains(out, "set replicas: 3") {
		t.Fatalf("check -o wide does not describe the replicas fix:\n%s", out)
	}
	_, errOut, code := runCLI(t, dir, "fix", "--rule", "replicas-too-few", "--diff", "web")
	const want = "nothing to fix; 1 fix to make by hand (no values key or literal line of its chart or overlay takes it; `prodready fix --dry-run` lists it)"
	if code != 0 || !strings.Contains(errOut, want) {
		t.Errorf("fix (exit %d) should count the replicas fix as one to make by hand:\n%s\nwant %q", code, errOut, want)
	}
	out, _, _ = runCLI(t, dir, "fix", "--rule", "replicas-too-few", "--dry-run", "web")
	if want := "web/templates/deployment.yaml:6 by hand replicas-too-few: set replicas: 3\n"; out != want {
		t.Errorf("fix --dry-run lists %q, want the fix to make by hand, where: %q", out, want)
	}
}

// TestFixSaysAFixInAnExcludedValuesFileIsNotApplied runs `prodready fix`
// as a process on a chart whose values.yaml the config excludes: the
// render still reads it, and the replicas fix goes there, but fix changes
// only the files it checks. It says the fix is not applied and why, and
// counts it, rather than leaving it out of every line.
func TestFixSaysAFixInAnExcludedValuesFileIsNotApplied(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		".prodready.yaml":               "exclude: [\"web/values.yaml\"]\n",
		"web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":               "replicaCount: 1\n",
		"web/templates/deployment.yaml": strings.Replace(spreadDeployment("web"), "  replicas: 3\n", "  replicas: {{ .Values.replicaCount }}\n", 1),
	})
	_, errOut, code := runCLI(t, dir, "fix", "--rule", "replicas-too-few", "--dry-run", "web")
	for _, want := range []string{
		"web/values.yaml:1 replicas-too-few: fix not applied: web/values.yaml is not among the files this run changes (the config's include or exclude leaves it out) (set replicas: 3",
		"nothing to fix; 1 fix could not be applied",
	} {
		if code != 0 || !strings.Contains(errOut, want) {
			t.Errorf("fix --dry-run (exit %d):\n%s\nwant %q", code, errOut, want)
		}
	}
}

// TestFixSaysAFixInAHelpersFileIsNotApplied runs `prodready fix` as a
// process on a chart whose container is a helper's text, included as it
// is: the fix's lines are the helper's, in _helpers.tpl, which the run
// reads for the render but does not change. fix says so and counts it.
func TestFixSaysAFixInAHelpersFileIsNotApplied(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		"web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml": "replicaCount: 3\n",
		"web/templates/_helpers.tpl": `{{- define "web.container" }}
        - name: web
          image: ghcr.io/example/web:1.0
          ports:
            - containerPort: 8080
{{- end }}
`,
		"web/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\nspec:\n  replicas: {{ .Values.replicaCount }}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n        {{- include \"web.container\" . }}\n",
	})
	_, errOut, code := runCLI(t, dir, "fix", "--rule", "privilege-escalation-allowed", "--dry-run", "web")
	for _, want := range []string{
		"web/templates/_helpers.tpl:3 privilege-escalation-allowed: fix not applied: web/templates/_helpers.tpl is read for the render only: fix changes the YAML files it checks, not a chart's helpers (set allowPrivilegeEscalation: false)",
		"nothing to fix; 1 fix could not be applied",
	} {
		if code != 0 || !strings.Contains(errOut, want) {
			t.Errorf("fix --dry-run (exit %d):\n%s\nwant %q", code, errOut, want)
		}
	}
}
