package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
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
	files := dormantChart(dep)
	files["plain/web.yaml"] = dep
	// A chart of components: the worker's budget is not the server's.
	files["multi/Chart.yaml"] = "apiVersion: v2\nname: multi\nversion: 0.1.0\n"
	files["multi/values.yaml"] = "pdb: false\n"
	files["multi/templates/server/deployment.yaml"] = dep
	files["multi/templates/worker/pdb.yaml"] = "{{- if .Values.pdb }}\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: worker\n{{- end }}\n"
	dir := writeRepo(t, files)
	messages := func(path string) map[string]string {
		t.Helper()
		fs, _ := checkJSON(t, dir, path)
		got := map[string]string{}
		for _, f := range fs {
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

// dormantChart is the files of chart web, which serves Deployment dep and
// writes its PodDisruptionBudget and ServiceAccount only under values its
// values.yaml leaves off.
func dormantChart(dep string) map[string]string {
	return map[string]string{
		"web/Chart.yaml":                    "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":                   "pdb:\n  enabled: false\nserviceAccount:\n  create: false\n",
		"web/templates/deployment.yaml":     dep,
		"web/templates/pdb.yaml":            "{{- if .Values.pdb.enabled }}\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: web\n{{- end }}\n",
		"web/templates/serviceaccount.yaml": "{{- if .Values.serviceAccount.create -}}\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n{{- end }}\n",
	}
}

// TestFixTurnsOnTheChartsOwnTemplate runs `prodready fix --rule
// pdb-missing` as a process on the chart whose pdb.yaml its values leave
// out: --dry-run names the values.yaml line it sets, the fix sets
// pdb.enabled: true there and nothing else, and `prodready check` of the
// fixed chart then renders the template (it is no longer among what was
// not checked) and finds no pdb-missing.
func TestFixTurnsOnTheChartsOwnTemplate(t *testing.T) {
	dir := writeRepo(t, dormantChart(spreadDeployment("web")))
	out, errOut, _ := runCLI(t, dir, "fix", "--rule", "pdb-missing", "--dry-run", "web")
	if want := "web/values.yaml:2 would fix pdb-missing: turn on the chart's web/templates/pdb.yaml (as pdb.enabled in values.yaml)"; !strings.Contains(out, want) {
		t.Fatalf("fix --dry-run:\n%s\n%s\nwant %q", out, errOut, want)
	}
	if out, errOut, code := runCLI(t, dir, "fix", "--rule", "pdb-missing", "web"); code != 0 {
		t.Fatalf("fix exited %d:\n%s\n%s", code, out, errOut)
	}
	values, err := os.ReadFile(filepath.Join(dir, "web/values.yaml"))
	if err != nil || string(values) != "pdb:\n  enabled: true\nserviceAccount:\n  create: false\n" {
		t.Fatalf("values.yaml after the fix (%v):\n%s", err, values)
	}
	out, errOut, _ = runCLI(t, dir, "check", "-o", "json", "web")
	var rep struct {
		Findings []struct{ Rule string }
		Summary  struct {
			NotChecked []struct{ Path string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check: %v\n%s\n%s", err, out, errOut)
	}
	for _, f := range rep.Findings {
		if f.Rule == "pdb-missing" {
			t.Errorf("the fixed chart still has pdb-missing:\n%s", out)
		}
	}
	for _, n := range rep.Summary.NotChecked {
		if n.Path == "web/templates/pdb.yaml" {
			t.Errorf("the fixed chart still renders nothing of web/templates/pdb.yaml:\n%s", out)
		}
	}
}

// TestServeSuggestsTurningOnTheChartsOwnBudget runs `prodready serve` as a
// process against the fake GitHub on a pull request that adds the chart
// whose pdb.yaml its values leave out: the review's one comment is on
// web/values.yaml line 2, and suggests the line that turns it on.
func TestServeSuggestsTurningOnTheChartsOwnBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	config := testconfig.OnlyRule("pdb-missing")
	head := dormantChart(spreadDeployment("web"))
	head[".prodready.yaml"] = config
	fake := reviewOpened(t, map[string]string{".prodready.yaml": config}, head)
	var comments []fakegithub.Comment
	for _, rv := range fake.Reviews("acme", "web") {
		comments = append(comments, rv.Comments...)
	}
	if len(comments) != 1 || comments[0].Path != "web/values.yaml" || comments[0].Line != 2 ||
		!strings.Contains(comments[0].Body, "pdb-missing") || !strings.Contains(comments[0].Body, "```suggestion\n  enabled: true\n```") {
		t.Fatalf("want one pdb-missing comment on web/values.yaml line 2 suggesting `  enabled: true`; got %+v", comments)
	}
}
