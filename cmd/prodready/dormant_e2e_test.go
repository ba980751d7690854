package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckPointsToTheChartsOwnTemplate runs `prodready check -o json` as
// a process on a chart whose pdb.yaml and serviceaccount.yaml its values
// leave out, and on the same Deployment as a plain file. In the chart,
// pdb-missing and default-service-account name the chart's template and
// the action it is written under, the values to set, and offer no new
// object to add (whose names would be the release's); the plain file gets
// the PodDisruptionBudget to add, and so does a component of a chart whose
// only budget template is another component's (in a folder of its own).
func TestCheckPointsToTheChartsOwnTemplate(t *testing.T) {
	dep := spreadDeployment("web")
	dir := writeRepo(t, map[string]string{
		"plain/web.yaml":                    dep,
		"web/Chart.yaml":                    "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":                   "pdb:\n  enabled: false\nserviceAccount:\n  create: false\n",
		"web/templates/deployment.yaml":     dep,
		"web/templates/pdb.yaml":            "{{- if .Values.pdb.enabled }}\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: web\n{{- end }}\n",
		"web/templates/serviceaccount.yaml": "{{- if .Values.serviceAccount.create -}}\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n{{- end }}\n",
		// A chart of components: the worker's budget is not the server's.
		"multi/Chart.yaml":                       "apiVersion: v2\nname: multi\nversion: 0.1.0\n",
		"multi/values.yaml":                      "pdb: false\n",
		"multi/templates/server/deployment.yaml": dep,
		"multi/templates/worker/pdb.yaml":        "{{- if .Values.pdb }}\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: worker\n{{- end }}\n",
	})
	messages := func(path string) map[string]string {
		t.Helper()
		out, errOut, _ := runCLI(t, dir, "check", "-o", "json", path)
		var rep struct {
			Findings []struct{ Rule, Message string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("check %s: %v\n%s\n%s", path, err, out, errOut)
		}
		got := map[string]string{}
		for _, f := range rep.Findings {
			got[f.Rule] = f.Message
		}
		return got
	}
	chart := messages("web")
	for rule, want := range map[string][]string{
		"pdb-missing":             {"the chart's web/templates/pdb.yaml writes one, but renders nothing with these values", "`{{- if .Values.pdb.enabled }}`", "set the values it needs"},
		"default-service-account": {"the chart's web/templates/serviceaccount.yaml writes one", "`{{- if .Values.serviceAccount.create -}}`"},
	} {
		msg := chart[rule]
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("chart %s: %q\nwant it to say %q", rule, msg, w)
			}
		}
		if strings.Contains(msg, "Add this") || strings.Contains(msg, "give the app its own ServiceAccount") {
			t.Errorf("chart %s: %q\nwant no new object offered beside the chart's own", rule, msg)
		}
	}
	for _, path := range []string{"plain", "multi"} {
		if msg := messages(path)["pdb-missing"]; !strings.Contains(msg, "Add this PodDisruptionBudget:\napiVersion: policy/v1") || strings.Contains(msg, "renders nothing") {
			t.Errorf("%s pdb-missing: %q\nwant the PodDisruptionBudget to add", path, msg)
		}
	}
}
