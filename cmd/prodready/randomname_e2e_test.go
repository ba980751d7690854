package main

import (
	"strings"
	"testing"
)

// TestFixVerifiesAChartThatNamesWithRandAlphaNum runs `prodready fix` and
// `prodready check` as processes on a chart whose Deployment is named
// web-{{ randAlphaNum 5 | lower }}, as charts name hook Jobs and test
// pods. The render that verifies the replicas fix names the Deployment as
// the check's render did, so the fix is applied, not withheld for the
// findings of "another" Deployment, and two checks report the same name.
func TestFixVerifiesAChartThatNamesWithRandAlphaNum(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		"web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml": "replicaCount: 1\n",
		"web/templates/deployment.yaml": strings.NewReplacer(
			"  name: web\nspec:\n  replicas: 3\n", "  name: web-{{ randAlphaNum 5 | lower }}\nspec:\n  replicas: {{ .Values.replicaCount }}\n",
		).Replace(spreadDeployment("web")),
	})
	out, errOut, code := runCLI(t, dir, "fix", "--rule", "replicas-too-few", "--dry-run", "web")
	if want := "web/values.yaml:1 would fix replicas-too-few: set replicas: 3"; code != 0 || !strings.Contains(out, want) || strings.Contains(out+errOut, "withheld") {
		t.Fatalf("fix --dry-run (exit %d):\n%s\n%s\nwant %q", code, out, errOut, want)
	}
	first, _ := checkJSON(t, dir, "web")
	again, _ := checkJSON(t, dir, "web")
	if len(first) == 0 || len(first) != len(again) {
		t.Fatalf("two checks: %d and %d findings", len(first), len(again))
	}
	for i := range first {
		if first[i].Object != again[i].Object || !strings.HasPrefix(first[i].Object.Name, "web-") {
			t.Errorf("finding %d: %+v, then %+v", i, first[i].Object, again[i].Object)
		}
	}
}
