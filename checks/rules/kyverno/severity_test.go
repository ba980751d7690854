package kyverno

import (
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/checkstest"
)

// The fixture markers check positions; this checks the severity
// of each case.
func TestKyvSeverities(t *testing.T) {
	cases := []struct {
		dir, file string
		line      int
		rule      string
		want      checks.Severity
	}{
		{"kyverno-replicas", "values-2x-two.yaml", 2, "kyverno-replicas", checks.Error},       // 2.7.5 refuses 2
		{"kyverno-replicas", "values.yaml", 4, "kyverno-replicas", checks.Error},              // 3.1.4 refuses 2
		{"kyverno-replicas", "values-2x-two-old.yaml", 2, "kyverno-replicas", checks.Warning}, // 2.5.0 installs 2
		{"kyverno-replicas", "values-3x.yaml", 3, "kyverno-replicas", checks.Warning},
		{"webhook-timeout", "webhooks.yaml", 9, "webhook-timeout", checks.Warning},
		{"webhook-timeout", "webhooks.yaml", 49, "webhook-timeout", checks.Info},                         // own API group only
		{"webhook-fail-closed-not-ha", "webhook.yaml", 10, "webhook-fail-closed-not-ha", checks.Error},   // intercepts pods
		{"webhook-fail-closed-not-ha", "webhook.yaml", 36, "webhook-fail-closed-not-ha", checks.Warning}, // its own CRDs
		{"kyverno-values-mixed-generation", "my-values.yaml", 4, "kyverno-values-mixed-generation", checks.Error},
		{"kyverno-in-kube-system", "releases.yaml", 7, "kyverno-in-kube-system", checks.Error},
		{"kyverno-controller-resources", "values-nulled.yaml", 3, "kyverno-controller-resources", checks.Info},
	}
	results := map[string]*checks.Result{}
	for _, c := range cases {
		res, ok := results[c.dir]
		if !ok {
			dir := filepath.Join("../../../fixtures/rules", c.dir)
			cfg, inputs := checkstest.Load(t, sectionCatalog, dir)
			res = checks.Run(inputs, cfg, checks.Options{})
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
