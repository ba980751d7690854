package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckValidatesValuesAgainstTheChartsSchema runs `prodready check` as a
// process on a chart whose values.yaml sets replicas to a string its
// values.schema.json refuses, as helm template refuses it: the error is at
// the values line, in the schema library's words, and the chart's objects
// are still checked (the Deployment's own schema-invalid finding).
func TestCheckValidatesValuesAgainstTheChartsSchema(t *testing.T) {
	repo := writeRepo(t, map[string]string{
		"web/Chart.yaml":         "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":        "image: nginx:1.27\nreplicas: many\n",
		"web/values.schema.json": `{"type": "object", "properties": {"replicas": {"type": ["integer", "null"]}}}`,
		"web/templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicas }}\n" +
			"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: {{ .Values.image }}\n",
	})
	fs, code := checkJSON(t, repo, "web")
	var refused, rendered bool
	for _, f := range fs {
		switch {
		case f.Rule == "render-failed" && f.File == "web/values.yaml" && f.Line == 2:
			refused = strings.Contains(f.Message, "helm template and helm install refuse these values: at '/replicas': got string, want null or integer") && f.Severity == "error"
			if !refused {
				t.Errorf("the values error reads %s %q", f.Severity, f.Message)
			}
		case f.Rule == "schema-invalid" && f.File == "web/templates/deploy.yaml":
			rendered = true
		}
	}
	if !refused {
		t.Errorf("no render-failed error at web/values.yaml:2; got %v", keysOf(byKey(fs)))
	}
	if !rendered {
		t.Errorf("the Deployment was not checked (no schema-invalid on its template); got %v", keysOf(byKey(fs)))
	}
	if code != 1 {
		t.Errorf("check exited %d, want 1 (an error)", code)
	}
}

// TestFixWithholdsAValuesEditTheSchemaRefuses runs `prodready fix --all
// --diff` as a process on a chart whose values.schema.json caps
// replicaCount at 1: replicas-too-few's fix (replicaCount: 3) would make
// helm install refuse the values, so it is withheld, with the schema's
// words, and nothing is written.
func TestFixWithholdsAValuesEditTheSchemaRefuses(t *testing.T) {
	repo := writeRepo(t, map[string]string{
		"web/Chart.yaml":         "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":        "replicaCount: 1\nimage: nginx:1.27\n",
		"web/values.schema.json": `{"type": "object", "properties": {"replicaCount": {"type": "integer", "maximum": 1}}}`,
		"web/templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicaCount }}\n" +
			"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: {{ .Values.image }}\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n",
	})
	out, errOut, code := runCLI(t, repo, "fix", "--all", "--diff", "--rule", "replicas-too-few", "web")
	all := out + errOut
	if !strings.Contains(all, "replicas-too-few: withheld: rendering the chart again with it: helm template and helm install refuse these values: at '/replicaCount': maximum: got 3, want 1") {
		t.Errorf("fix did not withhold the replicas fix with the schema's reason (exit %d):\n%s", code, all)
	}
	if strings.Contains(all, "+replicaCount: 3") {
		t.Errorf("fix wrote a value the chart's schema refuses:\n%s", all)
	}
}

// TestFixSaysWhyATemplateRefusesIt runs `prodready fix --all` as a process
// on a chart whose PodDisruptionBudget template fails once replicas rise
// without maxUnavailable (as loki-distributed's do): replicas-too-few's
// fix is withheld with the chart's own words, not dropped as "no
// automatic fix", and values.yaml is left as it was.
func TestFixSaysWhyATemplateRefusesIt(t *testing.T) {
	repo := writeRepo(t, map[string]string{
		"web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml": "replicas: 1\nimage: nginx:1.27\n",
		"web/templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicas }}\n" +
			"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: {{ .Values.image }}\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n",
		"web/templates/pdb.yaml": "{{- if gt (int .Values.replicas) 1 }}\n{{- if not .Values.maxUnavailable }}\n" +
			"{{- fail \"maxUnavailable must be set when replicas is greater than 1\" }}\n{{- end }}\n" +
			"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  maxUnavailable: {{ .Values.maxUnavailable }}\n  selector:\n    matchLabels: {app: web}\n{{- end }}\n",
	})
	_, errOut, code := runCLI(t, repo, "fix", "--all", "--rule", "replicas-too-few", "web")
	const want = "web/values.yaml:1 replicas-too-few: withheld: rendering the chart again with it: rendering: execution error at (web/templates/pdb.yaml:3:4): maxUnavailable must be set when replicas is greater than 1"
	if !strings.Contains(errOut, want) || code != 0 {
		t.Errorf("fix exited %d, want 0 and %q:\n%s", code, want, errOut)
	}
	if data, err := os.ReadFile(filepath.Join(repo, "web", "values.yaml")); err != nil || string(data) != "replicas: 1\nimage: nginx:1.27\n" {
		t.Errorf("values.yaml is now %q (%v), want it as it was", data, err)
	}
}
