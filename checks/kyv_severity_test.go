package checks

import (
	"path/filepath"
	"testing"
)

// The fixture markers check positions; this checks the severities RULES.md
// gives each case.
func TestKyvSeverities(t *testing.T) {
	cases := []struct {
		dir, file string
		line      int
		rule      string
		want      Severity
	}{
		{"kyverno-replicas", "values-2x-two.yaml", 2, "kyverno-replicas", Error},       // 2.7.5 refuses 2
		{"kyverno-replicas", "values.yaml", 4, "kyverno-replicas", Error},              // 3.1.4 refuses 2
		{"kyverno-replicas", "values-2x-two-old.yaml", 2, "kyverno-replicas", Warning}, // 2.5.0 installs 2
		{"kyverno-replicas", "values-3x.yaml", 3, "kyverno-replicas", Warning},
		{"webhook-timeout", "webhooks.yaml", 9, "webhook-timeout", Warning},
		{"webhook-timeout", "webhooks.yaml", 49, "webhook-timeout", Info},                         // own API group only
		{"webhook-fail-closed-not-ha", "webhook.yaml", 10, "webhook-fail-closed-not-ha", Error},   // intercepts pods
		{"webhook-fail-closed-not-ha", "webhook.yaml", 36, "webhook-fail-closed-not-ha", Warning}, // its own CRDs
		{"kyverno-values-mixed-generation", "my-values.yaml", 4, "kyverno-values-mixed-generation", Error},
		{"kyverno-in-kube-system", "releases.yaml", 7, "kyverno-in-kube-system", Error},
		{"kyverno-controller-resources", "values-nulled.yaml", 3, "kyverno-controller-resources", Info},
	}
	results := map[string]*Result{}
	for _, c := range cases {
		res, ok := results[c.dir]
		if !ok {
			dir := filepath.Join("../fixtures/rules", c.dir)
			cfg, err := LoadConfig(filepath.Join(dir, ConfigFileName), DefaultCatalog())
			if err != nil {
				t.Fatal(err)
			}
			inputs, err := Load([]string{dir}, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			res = Run(inputs, cfg, Options{})
			results[c.dir] = res
		}
		found := false
		for _, f := range res.Findings {
			if f.RuleID == c.rule && filepath.Base(f.File) == c.file && f.Line == c.line {
				found = true
				if f.Severity != c.want {
					t.Errorf("%s/%s:%d %s: severity %v, want %v", c.dir, c.file, c.line, c.rule, f.Severity, c.want)
				}
			}
		}
		if !found {
			t.Errorf("%s/%s:%d: no %s finding", c.dir, c.file, c.line, c.rule)
		}
	}
}
