package main

import (
	"strings"
	"testing"
)

// TestCheckReadsAFileNamedTwiceOnce runs `prodready check` as a process
// with a file named along with its folder, or twice, as a pre-commit hook
// or a shell glob passes them: each file is read and reported once. And a
// chart named whole along with one of its files (`check web
// web/values.yaml`) is checked whole, as `check web` checks it, not
// dropped for the file named.
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
		{[]string{"web"}, [][]string{{"web", "web/values.yaml"}, {"web/values.yaml", "web"}, {"web/", "web/templates/deployment.yaml"}}},
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
