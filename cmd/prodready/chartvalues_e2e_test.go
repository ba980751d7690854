package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chartWithTwoSets is a chart whose values.yaml runs an unprivileged
// container and whose one other values set, ci/privileged-values.yaml,
// makes it privileged: privileged-container is a finding of that set
// alone. config, when not empty, is written as .prodready.yaml.
func chartWithTwoSets(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"values.yaml":               "privileged: false\n",
		"ci/privileged-values.yaml": "privileged: true\n",
		"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.27.0
          securityContext:
            privileged: {{ .Values.privileged }}
`,
	}
	if config != "" {
		files[".prodready.yaml"] = config
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// chartValuesRun is what one check of chartWithTwoSets reported.
type chartValuesRun struct {
	privileged int    // privileged-container findings
	message    string // the first one's message
	leftOut    string // the reason ci/privileged-values.yaml is named not checked, if it is
}

// checkChartValues runs prodready check --format json in dir with flags.
func checkChartValues(t *testing.T, dir string, flags ...string) chartValuesRun {
	t.Helper()
	out, errOut, code := runCLI(t, dir, append(append([]string{"check", "--format", "json"}, flags...), ".")...)
	var rep struct {
		Findings []cliFinding
		Summary  struct {
			NotChecked []struct{ Path, Reason string } `json:"notChecked"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("prodready check %v (exit %d): %v\n%s\n%s", flags, code, err, out, errOut)
	}
	var run chartValuesRun
	for _, f := range rep.Findings {
		if f.Rule == "privileged-container" {
			if run.privileged == 0 {
				run.message = f.Message
			}
			run.privileged++
		}
	}
	for _, nc := range rep.Summary.NotChecked {
		if nc.Path == "ci/privileged-values.yaml" {
			run.leftOut = nc.Reason
		}
	}
	return run
}

// TestChartValuesDefaultRendersValuesYAMLOnly runs prodready check as a
// process on a chart with two values sets: by default (and with
// --chart-values all) the second set is rendered and its finding named
// with it; with --chart-values default, or chartValues: default in the
// config, the chart is rendered with its values.yaml only, the set's
// finding is gone and the set's file is named as not rendered, with why.
// The flag overrides the config either way; a value neither knows is a
// usage error naming the flag or the key.
func TestChartValuesDefaultRendersValuesYAMLOnly(t *testing.T) {
	plain := chartWithTwoSets(t, "")
	for _, flags := range [][]string{nil, {"--chart-values", "all"}} {
		run := checkChartValues(t, plain, flags...)
		if run.privileged != 1 || !strings.Contains(run.message, "ci/privileged-values.yaml") {
			t.Errorf("check %v: %d privileged-container findings (%q), want 1 naming ci/privileged-values.yaml", flags, run.privileged, run.message)
		}
		if run.leftOut != "" {
			t.Errorf("check %v: ci/privileged-values.yaml named not checked (%s), but every set is rendered", flags, run.leftOut)
		}
	}
	configured := chartWithTwoSets(t, "chartValues: default\n")
	for _, tc := range []struct {
		dir   string
		flags []string
	}{
		{plain, []string{"--chart-values", "default"}},
		{configured, nil},
	} {
		run := checkChartValues(t, tc.dir, tc.flags...)
		if run.privileged != 0 {
			t.Errorf("check %v (config %v): %d privileged-container findings, want none: only values.yaml is rendered", tc.flags, tc.dir == configured, run.privileged)
		}
		if !strings.Contains(run.leftOut, "values set not rendered") || !strings.Contains(run.leftOut, "chartValues: default") {
			t.Errorf("check %v (config %v): ci/privileged-values.yaml not named as a values set left out, with why: %q", tc.flags, tc.dir == configured, run.leftOut)
		}
	}
	if run := checkChartValues(t, configured, "--chart-values", "all"); run.privileged != 1 || run.leftOut != "" {
		t.Errorf("--chart-values all over chartValues: default: %d privileged-container findings, left out %q; want the set rendered", run.privileged, run.leftOut)
	}

	_, errOut, code := runCLI(t, plain, "check", "--chart-values", "defualt", ".")
	if code != 2 || !strings.Contains(errOut, "--chart-values") || !strings.Contains(errOut, `"default"`) {
		t.Errorf("--chart-values defualt: exit %d, stderr %q; want 2 naming the flag and suggesting default", code, errOut)
	}
	bad := chartWithTwoSets(t, "chartValues: every\n")
	_, errOut, code = runCLI(t, bad, "check", ".")
	if code != 2 || !strings.Contains(errOut, "chartValues") || !strings.Contains(errOut, "all or default") {
		t.Errorf("chartValues: every: exit %d, stderr %q; want 2 naming the key and its values", code, errOut)
	}
}
