package checks_test

import (
	"errors"
	"fmt"
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
  schema-invalid: false
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
	if cfg.Enabled(catalog.Default().Lookup("schema-invalid")) {
		t.Error("rule disabled by `schema-invalid: false` is still enabled")
	}
	if !cfg.Wants("deploy/app/web.yaml") || cfg.Wants("deploy/app/test/web.yaml") || cfg.Wants("other/web.yaml") {
		t.Error("include/exclude globs")
	}
}

// TestConfigErrorsNameTheKey holds config errors to the file's own terms:
// the file named as given, the line, the YAML key (with the nearest known
// one when it is close), never a Go type.
func TestConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"kubernetesVersoin: 1.30\n", `cfg1.yaml: line 1: unknown key "kubernetesVersoin" (did you mean "kubernetesVersion"?)`},
		{"failOn: error\nrulez: {}\n", `cfg1.yaml: line 2: unknown key "rulez" (did you mean "rules"?)`},
		{"FailOn: error\n", `cfg1.yaml: line 1: unknown key "FailOn" (did you mean "failOn"?)`},
		{"colour: red\n", `cfg1.yaml: line 1: unknown key "colour" (it takes kubernetesVersion, failOn, include, exclude, limits, rules, helmValues, charts, chartValues, review, crds, checks)`},
		{"rules:\n  no-such-rule: {enabled: true}\n", "cfg1.yaml: line 2: rules: unknown rule \"no-such-rule\" (see `prodready rules`)"},
		{"rules:\n  pdb-mising: false\n", "cfg1.yaml: line 2: rules: unknown rule \"pdb-mising\" (did you mean \"pdb-missing\"? see `prodready rules`)"},
		{"rules:\n  probe-named-port-undeclared: {minReplicas: 3}\n", `cfg1.yaml: line 2: rules.probe-named-port-undeclared: unknown parameter "minReplicas" (this rule takes none)`},
		{"rules:\n  replicas-too-few:\n    severity: error\n    minReplica: 3\n", `cfg1.yaml: line 4: rules.replicas-too-few: unknown parameter "minReplica" (did you mean "minReplicas"?)`},
		{"rules:\n  replicas-too-few: {severity: critical}\n", `cfg1.yaml: line 2: rules.replicas-too-few.severity: want info, warning or error, not "critical"`},
		{"rules:\n  replicas-too-few: {enabled: maybe}\n", `cfg1.yaml: line 2: rules.replicas-too-few.enabled: want true or false, not "maybe"`},
		{"rules:\n  replicas-too-few: [1]\n", `cfg1.yaml: line 2: rules.replicas-too-few: want true, false or a mapping (enabled, severity, the rule's parameters), not a list`},
		{"rules:\n  yaml-invalid: false\n", "cfg1.yaml: line 2: rules.yaml-invalid cannot be switched off: its findings say what was not checked, which would otherwise pass in silence; set its severity instead ({severity: info}) and failOn decides whether it fails the run"},
		{"rules:\n  render-failed: {enabled: false, severity: info}\n", "cfg1.yaml: line 2: rules.render-failed cannot be switched off: its findings say what was not checked, which would otherwise pass in silence; set its severity instead ({severity: info}) and failOn decides whether it fails the run"},
		{"\nfailOn: sometimes\n", `cfg1.yaml: line 2: failOn: want info, warning, error or none, not "sometimes"`},
		{"kubernetesVersion: latest\n", `cfg1.yaml: line 1: kubernetesVersion: "latest" is not a Kubernetes release: want one like 1.33 or v1.33.2`},
		{"limits: {maxFileByte: 3}\n", `cfg1.yaml: line 1: unknown key "maxFileByte" in limits (did you mean "maxFileBytes"?)`},
		{"limits:\n  maxFileBytes: lots\n", `cfg1.yaml: line 2: limits.maxFileBytes: want a whole number from 1 to 1073741824, not "lots"`},
		{"include: '*.yaml'\n", `cfg1.yaml: line 1: include: want a list, not "*.yaml" (write ["*.yaml"])`},
		{"charts: [{path: charts/web}]\n", "cfg1.yaml: line 1: charts[0]: a chart takes a path and at least one values file ({path: charts/web, values: [envs/prod.yaml]})"},
		{"charts:\n  - path: web\n    value: [a.yaml]\n", `cfg1.yaml: line 3: unknown key "value" in charts[0] (did you mean "values"?)`},
		{"failOn: error\nfailOn: info\n", `cfg1.yaml: line 2: key "failOn" is given twice (first at line 1)`},
		{"review:\n  maxComment: 3\n", `cfg1.yaml: line 2: unknown key "maxComment" in review (did you mean "maxComments"?)`},
		{"review:\n  report: changed\n", `cfg1.yaml: line 2: review.report: want new, touched or all, not "changed"`},
		{"review:\n  report: tuched\n", `cfg1.yaml: line 2: review.report: want new, touched or all, not "tuched" (did you mean "touched"?)`},
		{"review:\n  inline: warnig\n", `cfg1.yaml: line 2: review.inline: want info, warning, error or none, not "warnig" (did you mean "warning"?)`},
		{"review:\n  maxComments: many\n", `cfg1.yaml: line 2: review.maxComments: want a whole number from 0 to 100, not "many"`},
		{"review:\n  maxComments: 500\n", `cfg1.yaml: line 2: review.maxComments: want a whole number from 0 to 100, not 500`},
		{"review:\n  allowIgnoresInPR: no way\n", `cfg1.yaml: line 2: review.allowIgnoresInPR: want true or false, not "no way"`},
		{"kubernetesVersion: 2.0\n", `cfg1.yaml: line 1: kubernetesVersion: "2.0" is not a Kubernetes release: they are 1.x (1.33, v1.33.2)`},
		{"kubernetesVersion: v0.33\n", `cfg1.yaml: line 1: kubernetesVersion: "v0.33" is not a Kubernetes release: they are 1.x (1.33, v1.33.2)`},
		{"kubernetesVersion: \"1\"\n", `cfg1.yaml: line 1: kubernetesVersion: "1" is not a Kubernetes release: want one like 1.33 or v1.33.2`},
		{"kubernetesVersion: \"1.330\"\n", `cfg1.yaml: line 1: kubernetesVersion: "1.330" is not a Kubernetes release yet: want one like 1.33 (prodready knows up to 1.37)`},
		{"kubernetesVersion: [1.33]\n", `cfg1.yaml: line 1: kubernetesVersion: want a text value, not a list`},
		{"limits: {maxFileBytes: -1}\n", `cfg1.yaml: line 1: limits.maxFileBytes: want a whole number from 1 to 1073741824, not -1`},
		{"limits: {maxFileBytes: 99999999999}\n", `cfg1.yaml: line 1: limits.maxFileBytes: want a whole number from 1 to 1073741824, not 99999999999`},
		{"rules:\n  replicas-too-few: {minReplicas: \"three\"}\n", `cfg1.yaml: line 2: rules.replicas-too-few.minReplicas: want a whole number from 2 up, not "three"`},
		{"rules:\n  replicas-too-few: {minReplicas: three}\n", `cfg1.yaml: line 2: rules.replicas-too-few.minReplicas: want a whole number from 2 up, not "three"`},
		{"rules:\n  replicas-too-few:\n    minReplicas: -1\n", `cfg1.yaml: line 3: rules.replicas-too-few.minReplicas: want a whole number from 2 up, not -1`},
		{"rules:\n  replicas-too-few: {minReplicas: 2.5}\n", `cfg1.yaml: line 2: rules.replicas-too-few.minReplicas: want a whole number from 2 up, not 2.5`},
		{"rules:\n  replicas-too-few: {minReplicas: \"3\"}\n", `cfg1.yaml: line 2: rules.replicas-too-few.minReplicas: want a whole number from 2 up, not "3"`},
		{"rules:\n  replicas-too-few: {minReplicas: 1}\n", `cfg1.yaml: line 2: rules.replicas-too-few.minReplicas: want a whole number from 2 up, not 1`},
		{"rules:\n  webhook-timeout: {max: 31}\n", `cfg1.yaml: line 2: rules.webhook-timeout.max: want a whole number from 1 to 30, not 31`},
		{"rules:\n  pdb-blocks-eviction: {allowMaxUnavailableZero: sometimes}\n", `cfg1.yaml: line 2: rules.pdb-blocks-eviction.allowMaxUnavailableZero: want true or false, not "sometimes"`},
		{"rules:\n  required-labels-missing: {labels: team}\n", `cfg1.yaml: line 2: rules.required-labels-missing.labels: want a list of text values (write ["team"]), not "team"`},
		{"rules:\n  required-labels-missing:\n    labels:\n      - team\n      - {a: b}\n", `cfg1.yaml: line 5: rules.required-labels-missing.labels[1]: want a text value, not a mapping`},
		{"rules:\n  webhook-timeout: {min: 20, max: 10}\n", `cfg1.yaml: line 2: rules.webhook-timeout: min (20) is above max (10): nothing would be in range`},
		{"rules:\n  webhook-timeout:\n    max: 3\n", `cfg1.yaml: line 3: rules.webhook-timeout: min (5) is above max (3): nothing would be in range`},
		{"- a\n", "cfg1.yaml: line 1: the config: want a mapping with the keys kubernetesVersion, failOn, include, exclude, limits, rules, helmValues, charts, chartValues, review, crds, checks, not a list"},
		{"checks:\n  - name: registries\n    match: {kinds: [Deployment]}\n", "cfg1.yaml: line 2: checks[0]: a check takes at least one validation ({expression: ..., message: ...})"},
		{"checks:\n  - name: a b\n", "cfg1.yaml: line 2: checks[0]: a check takes a name of letters, digits and dashes (its findings are policy/<name>)"},
		{"checks:\n  - name: x\n    severity: fatal\n    match: {kinds: [Pod]}\n    validations: [{expression: 'true'}]\n", `cfg1.yaml: line 3: checks[0].severity: want info, warning or error, not "fatal"`},
		{"checks:\n  - name: x\n    validations: [{expresion: 'true'}]\n", `cfg1.yaml: line 3: unknown key "expresion" in checks[0].validations[0] (did you mean "expression"?)`},
	} {
		_, err := checks.ParseConfigFile("cfg1.yaml", []byte(tc.src), catalog.Default())
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseConfigFile(%q) error:\n got %v\nwant %s", tc.src, err, tc.want)
		}
		var ce *checks.ConfigError
		if !errors.As(err, &ce) || ce.File != "cfg1.yaml" {
			t.Errorf("ParseConfigFile(%q): %T is not a ConfigError of cfg1.yaml", tc.src, err)
		}
	}
	if _, err := checks.ParseConfig([]byte("rulez: {}\n"), catalog.Default()); err == nil || !strings.HasPrefix(err.Error(), checks.ConfigFileName+": line 1: ") {
		t.Errorf("ParseConfig names %s: %v", checks.ConfigFileName, err)
	}
	if _, err := checks.ParseConfigFile("x.yaml", []byte("failOn: [\n"), catalog.Default()); err == nil || !strings.HasPrefix(err.Error(), "x.yaml: line ") || strings.Contains(err.Error(), ": yaml: ") {
		t.Errorf("a YAML syntax error names the file and line, without go-yaml's prefix: %v", err)
	}
	for _, src := range []string{"", "# nothing set\n", "failOn: warn\nrules:\n  replicas-too-few: {severity: warning, minReplicas: 3}\n"} {
		if _, err := checks.ParseConfigFile("ok.yaml", []byte(src), catalog.Default()); err != nil {
			t.Errorf("ParseConfigFile(%q): %v", src, err)
		}
	}
}

func TestClosest(t *testing.T) {
	known := []string{"rules", "review", "include", "exclude"}
	for word, want := range map[string]string{"rulez": "rules", "RULES": "rules", "exclud": "exclude", "reveiw": "review", "x": "", "colour": "", "": ""} {
		if got := checks.Closest(word, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", word, got, want)
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

// TestReviewConfig reads the review section and its defaults: report new,
// inline from warning, 25 comments, ignores a pull request adds not
// trusted (review.allowIgnoresInPR must say true at base).
func TestReviewConfig(t *testing.T) {
	def := checks.DefaultConfig(catalog.Default()).Review
	if def.ReportMode() != checks.ReportNew || def.InlineSeverity() != checks.Warning || def.CommentCap() != 25 || def.IgnoresInPR() {
		t.Errorf("defaults: report %q inline %s cap %d ignores %v", def.ReportMode(), def.InlineSeverity(), def.CommentCap(), def.IgnoresInPR())
	}
	cfg, err := checks.ParseConfigFile("c.yaml", []byte("review:\n  report: touched\n  inline: error\n  maxComments: 0\n  allowIgnoresInPR: true\n"), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Review
	if r.ReportMode() != checks.ReportTouched || r.InlineSeverity() != checks.Error || r.CommentCap() != 0 || !r.IgnoresInPR() {
		t.Errorf("parsed: report %q inline %s cap %d ignores %v", r.ReportMode(), r.InlineSeverity(), r.CommentCap(), r.IgnoresInPR())
	}
	cfg, err = checks.ParseConfigFile("c.yaml", []byte("review: {inline: none}\n"), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Review.InlineSeverity() <= checks.Error {
		t.Errorf("inline none: %s, want above error", cfg.Review.InlineSeverity())
	}
}

// TestOnlyTheAlwaysOnInputRulesIgnoreSwitchingOff: schema-invalid is a
// check like the others and a config switches it off; yaml-invalid says a
// file was not checked, and stays whatever a config set in code says
// (ParseConfig refuses to switch it off) — in both kinds of run.
func TestOnlyTheAlwaysOnInputRulesIgnoreSwitchingOff(t *testing.T) {
	cfg, err := checks.ParseConfig([]byte("rules:\n  schema-invalid: false\n"), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	inputs := func() []checks.Input { // afresh for each run: a lean run lets its inputs' bytes go
		return []checks.Input{
			{Path: "dup.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  a: b\n  a: c\n")},
			{Path: "bad.yaml", Data: []byte("a: [\n")},
		}
	}
	for _, mem := range []checks.Memory{checks.KeepTrees, checks.Lean} {
		for _, c := range []struct {
			cfg        *checks.Config
			wantSchema bool
		}{{checks.DefaultConfig(catalog.Default()), true}, {cfg, false}} {
			got := map[string]bool{}
			for _, f := range checks.Run(inputs(), c.cfg, checks.Options{Memory: mem}).Findings {
				got[f.RuleID+" "+f.File] = true
			}
			if got["schema-invalid dup.yaml"] != c.wantSchema {
				t.Errorf("memory %d: schema-invalid reported = %v, want %v: %v", mem, got["schema-invalid dup.yaml"], c.wantSchema, got)
			}
			if !got["yaml-invalid bad.yaml"] {
				t.Errorf("memory %d: yaml-invalid not reported: %v", mem, got)
			}
		}
	}
	if err := cfg.SetEnabled("yaml-invalid", false); err == nil || !strings.Contains(err.Error(), "cannot be switched off") {
		t.Errorf("SetEnabled(yaml-invalid, false) = %v, want a refusal", err)
	}
	if !cfg.Enabled(catalog.Default().Lookup("yaml-invalid")) {
		t.Error("yaml-invalid is not enabled")
	}
}

// TestConfigErrorsAllAtOnce: a file with several problems gets them all in
// one error, in the order of their lines, each with its own line; a
// problem of a value is not said a second time by what follows from it.
func TestConfigErrorsAllAtOnce(t *testing.T) {
	src := `kubernetesVersion: 2.0
failOn: sometimes
rulez: {}
limits: {maxFileBytes: -1}
rules:
  replicas-too-few: {minReplicas: three}
  webhook-timeout: {min: 0, max: 31}
  pdb-mising: false
charts:
  - path: web
    value: [a.yaml]
review:
  report: tuched
  maxComments: 500
`
	_, err := checks.ParseConfigFile("c.yaml", []byte(src), catalog.Default())
	want := strings.Join([]string{
		`c.yaml: line 1: kubernetesVersion: "2.0" is not a Kubernetes release: they are 1.x (1.33, v1.33.2)`,
		`c.yaml: line 2: failOn: want info, warning, error or none, not "sometimes"`,
		`c.yaml: line 3: unknown key "rulez" (did you mean "rules"?)`,
		`c.yaml: line 4: limits.maxFileBytes: want a whole number from 1 to 1073741824, not -1`,
		`c.yaml: line 6: rules.replicas-too-few.minReplicas: want a whole number from 2 up, not "three"`,
		`c.yaml: line 7: rules.webhook-timeout.min: want a whole number from 1 to 30, not 0`,
		`c.yaml: line 7: rules.webhook-timeout.max: want a whole number from 1 to 30, not 31`,
		"c.yaml: line 8: rules: unknown rule \"pdb-mising\" (did you mean \"pdb-missing\"? see `prodready rules`)",
		`c.yaml: line 11: unknown key "value" in charts[0] (did you mean "values"?)`,
		`c.yaml: line 13: review.report: want new, touched or all, not "tuched" (did you mean "touched"?)`,
		`c.yaml: line 14: review.maxComments: want a whole number from 0 to 100, not 500`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Fatalf("got\n%v\nwant\n%s", err, want)
	}
	var ces checks.ConfigErrors
	if !errors.As(err, &ces) || len(ces) != 11 {
		t.Errorf("%T is not a ConfigErrors of 11", err)
	}
}

// TestKubernetesVersion: versions are read by apimachinery's parser, as
// 1.x releases, from the config and from the flag's setter alike; 2.0 is
// refused, not read as minor 0.
func TestKubernetesVersion(t *testing.T) {
	for in, minor := range map[string]int{"1.33": 33, "v1.29": 29, "v1.30.2": 30, "1.31.4-gke.1000": 31, " 1.28 ": 28, "1.0": 0} {
		if _, m, err := checks.ParseKubernetesVersion(in); err != nil || m != minor {
			t.Errorf("ParseKubernetesVersion(%q) = %d, %v; want %d", in, m, err, minor)
		}
	}
	for _, in := range []string{"2.0", "0.9", "1", "latest", "", "v", "1.x", "1.999", "01.33"} {
		if _, _, err := checks.ParseKubernetesVersion(in); err == nil {
			t.Errorf("ParseKubernetesVersion(%q) accepted", in)
		}
	}
	cfg := checks.DefaultConfig(catalog.Default())
	if err := cfg.SetKubernetesVersion("2.0"); err == nil || cfg.TargetMinor() != 37 {
		t.Errorf("SetKubernetesVersion(2.0) = %v, target 1.%d: want a refusal and 1.37 kept", err, cfg.TargetMinor())
	}
	if err := cfg.SetKubernetesVersion("v1.25.3"); err != nil || cfg.TargetMinor() != 25 {
		t.Errorf("SetKubernetesVersion(v1.25.3) = %v, target 1.%d", err, cfg.TargetMinor())
	}
	// An unquoted version is read as written: 1.30 is 1.30, not the
	// number 1.3.
	c, err := checks.ParseConfig([]byte("kubernetesVersion: 1.30\n"), catalog.Default())
	if err != nil || c.TargetMinor() != 30 {
		t.Errorf("kubernetesVersion: 1.30 read as 1.%d (%v)", c.TargetMinor(), err)
	}
}

// TestRuleParamsTakeTheirValues: valid parameters of each type are read as
// the rules read them.
func TestRuleParamsTakeTheirValues(t *testing.T) {
	c, err := checks.ParseConfig([]byte(`rules:
  replicas-too-few: {minReplicas: 3}
  webhook-timeout: {min: 1, max: 30}
  pdb-blocks-eviction: {allowMaxUnavailableZero: true}
  required-labels-missing: {enabled: true, labels: [team, "app.kubernetes.io/name"]}
`), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if c.IntParam("replicas-too-few", "minReplicas") != 3 || c.IntParam("webhook-timeout", "max") != 30 {
		t.Errorf("int params: %d %d", c.IntParam("replicas-too-few", "minReplicas"), c.IntParam("webhook-timeout", "max"))
	}
	if got := c.StringsParam("required-labels-missing", "labels"); len(got) != 2 || got[1] != "app.kubernetes.io/name" {
		t.Errorf("labels: %v", got)
	}
	if c.Param("pdb-blocks-eviction", "allowMaxUnavailableZero") != true {
		t.Error("bool param lost")
	}
}

// TestRuleParamItems: list parameters whose items are label keys, label
// pairs or namespace names refuse an item that cannot be one, naming it
// and its line in the API server's words; each rule's defaults pass their
// own checks.
func TestRuleParamItems(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"rules:\n  required-labels-missing:\n    labels: [team, \"team name\"]\n", `c.yaml: line 3: rules.required-labels-missing.labels[1]: "team name" is not a label key: `},
		{"rules:\n  template-labels-not-propagated:\n    labels:\n      - -team\n", `c.yaml: line 4: rules.template-labels-not-propagated.labels[0]: "-team" is not a label key: `},
		{"rules:\n  priority-class-missing: {criticalLabels: [\"tier=front end\"]}\n", `c.yaml: line 2: rules.priority-class-missing.criticalLabels[0]: "front end" is not a label value: `},
		{"rules:\n  priority-class-missing: {criticalNamespaces: [Payments]}\n", `c.yaml: line 2: rules.priority-class-missing.criticalNamespaces[0]: "Payments" is not a namespace name: `},
	} {
		_, err := checks.ParseConfigFile("c.yaml", []byte(tc.src), catalog.Default())
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseConfigFile(%q):\n got %v\nwant %s…", tc.src, err, tc.want)
		}
	}
	if _, err := checks.ParseConfig([]byte("rules:\n  priority-class-missing: {enabled: true, criticalLabels: [tier=frontend, prodready.io/critical], criticalNamespaces: [payments]}\n  required-labels-missing: {labels: [app.kubernetes.io/name, team]}\n"), catalog.Default()); err != nil {
		t.Errorf("valid items refused: %v", err)
	}
	for _, r := range catalog.Default().Rules() {
		for name, check := range r.ParamItems {
			defaults, ok := r.Params[name].([]string)
			if !ok {
				t.Errorf("%s: ParamItems names %s, which is not a list parameter", r.ID, name)
			}
			for _, item := range defaults {
				if err := check(item); err != nil {
					t.Errorf("%s.%s: its default %q fails its own check: %v", r.ID, name, item, err)
				}
			}
		}
	}
}

// TestConfigErrorsBounded: a file of thousands of mistakes says the first
// 50 and how many more, not thousands of lines.
func TestConfigErrorsBounded(t *testing.T) {
	var src strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&src, "key%d: 1\n", i)
	}
	_, err := checks.ParseConfigFile("big.yaml", []byte(src.String()), catalog.Default())
	var ces checks.ConfigErrors
	if !errors.As(err, &ces) || len(ces) != 3000 {
		t.Fatalf("%T with %d problems, want 3000", err, len(ces))
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 51 || lines[50] != "big.yaml: … and 2950 more problems" || !strings.HasPrefix(lines[0], "big.yaml: line 1: unknown key \"key0\"") {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}
