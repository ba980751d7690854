package checks_test

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

func TestParseConfig(t *testing.T) {
	cfg, err := checks.ParseConfig([]byte(`
kubernetesVersion: "1.29"
failOn: warning
include: ["deploy/**/*.yaml"]
exclude: ["**/test/**"]
limits: {maxFileBytes: 1024}
rules:
  probe-named-port-undeclared: {severity: warning}
  yaml-invalid: false
charts:
  - {path: charts/web, values: [envs/prod.yaml, envs/eu.yaml]}
`), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TargetMinor() != 29 || cfg.FailOnSeverity() != checks.Warning || cfg.ParseLimits().MaxFileBytes != 1024 {
		t.Fatalf("config: %+v", cfg)
	}
	if len(cfg.Charts) != 1 || cfg.Charts[0].Path != "charts/web" || len(cfg.Charts[0].Values) != 2 {
		t.Errorf("charts: %+v", cfg.Charts)
	}
	if cfg.SeverityOf("probe-named-port-undeclared") != checks.Warning {
		t.Error("severity override lost")
	}
	if cfg.Enabled(catalog.Default().Lookup("yaml-invalid")) {
		t.Error("rule disabled by `yaml-invalid: false` is still enabled")
	}
	if !cfg.Wants("deploy/app/web.yaml") || cfg.Wants("deploy/app/test/web.yaml") || cfg.Wants("other/web.yaml") {
		t.Error("include/exclude globs")
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"kubernetesVersoin: 1.30\n", "kubernetesVersoin"},
		{"rules:\n  no-such-rule: {enabled: true}\n", `"no-such-rule"`},
		{"rules:\n  probe-named-port-undeclared: {minReplicas: 3}\n", `"minReplicas"`},
		{"failOn: sometimes\n", "sometimes"},
		{"kubernetesVersion: latest\n", "latest"},
		{"limits: {maxFileByte: 3}\n", "maxFileByte"},
		{"charts: [{path: charts/web}]\n", "charts[0]"},
		{"charts: [{path: web, value: [a.yaml]}]\n", "value"},
	} {
		_, err := checks.ParseConfig([]byte(tc.src), catalog.Default())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%q) error = %v, want one naming %s", tc.src, err, tc.want)
		}
	}
}

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		glob, path string
		want       bool
	}{
		{"*.yaml", "a/b/c.yaml", true},
		{"**/*.yaml", "c.yaml", true},
		{"deploy/**", "deploy/a/b.yaml", true},
		{"deploy/*.yaml", "deploy/a/b.yaml", false},
		{"charts/**/values.yaml", "charts/x/values.yaml", true},
		{"charts/**/values.yaml", "charts/x/templates/a.yaml", false},
	} {
		if got := checks.MatchGlob(tc.glob, tc.path); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.glob, tc.path, got, tc.want)
		}
	}
}

func TestIgnores(t *testing.T) {
	src := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: a
  annotations:
    prodready.dev/ignore: "probe-named-port-undeclared"
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers:
        - name: a
          image: a:1
          readinessProbe: {tcpSocket: {port: nope}}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: b
spec:
  selector: {matchLabels: {app: b}}
  template:
    metadata: {labels: {app: b}}
    spec:
      containers:
        - name: b
          image: b:1
          readinessProbe:
            tcpSocket:
              # prodready:ignore probe-named-port-undeclared the sidecar declares it
              port: nope
          livenessProbe:
            tcpSocket:
              port: nope
`
	res := checks.Run([]checks.Input{{Path: "x.yaml", Data: []byte(src)}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
	var lines []int
	for _, f := range res.Findings {
		if f.RuleID == "probe-named-port-undeclared" {
			lines = append(lines, f.Line)
		}
	}
	if len(lines) != 1 || lines[0] != 35 {
		t.Fatalf("want only the un-ignored liveness finding at line 35, got lines %v", lines)
	}
}
