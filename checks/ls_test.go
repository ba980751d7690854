package checks

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// lsFixtureFindings runs every rule over a fixture folder (as
// TestRuleFixtures does) and returns rule's findings by "file:line".
func lsFixtureFindings(t *testing.T, rule string) map[string]Finding {
	t.Helper()
	dir := filepath.Join("..", "fixtures", "rules", rule)
	cfg, err := LoadConfig(filepath.Join(dir, ConfigFileName), DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := Load([]string{dir}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Finding{}
	for _, f := range Run(inputs, cfg, Options{}).Findings {
		if f.RuleID == rule {
			out[filepath.Base(f.File)+":"+strconv.Itoa(f.Line)] = f
		}
	}
	return out
}

// TestLsSeverities checks the severities RULES.md gives the milder cases,
// which the # want: markers do not show.
func TestLsSeverities(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "fixtures", "rules")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		rule string
		want map[string]Severity
	}{
		{"vpa-auto-update", map[string]Severity{"vpa.yaml:26": Warning, "vpa.yaml:33": Info}},
		{"rwo-volume-shared-by-replicas", map[string]Severity{"workloads.yaml:45": Warning, "workloads.yaml:51": Info, "workloads.yaml:92": Warning}},
		{"hpa-min-replicas-too-low", map[string]Severity{"hpa.yaml:8": Warning, "hpa.yaml:16": Warning, "hpa.yaml:53": Warning}},
	} {
		got := lsFixtureFindings(t, tt.rule)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d findings, want %d: %v", tt.rule, len(got), len(tt.want), got)
		}
		for at, sev := range tt.want {
			if f, ok := got[at]; !ok || f.Severity != sev {
				t.Errorf("%s at %s: got %v (found %v), want %v", tt.rule, at, f.Severity, ok, sev)
			}
		}
	}
}

// TestLsFixes checks the fixes of the family: minReplicas 2 (none when
// maxReplicas is below 2), updateMode "Off" quoted so YAML does not read a
// boolean.
func TestLsFixes(t *testing.T) {
	hpa := lsFixtureFindings(t, "hpa-min-replicas-too-low")
	if f := hpa["hpa.yaml:8"]; f.Fix == nil || f.Fix.Edits[0].Value != "2" || f.Fix.Edits[0].Path[1] != "minReplicas" {
		t.Errorf("minReplicas 1: fix %+v, want minReplicas: 2", f.Fix)
	}
	if f := hpa["hpa.yaml:53"]; f.Fix != nil {
		t.Errorf("maxReplicas 1: want no fix, got %+v", f.Fix)
	}
	vpa := lsFixtureFindings(t, "vpa-auto-update")
	if f := vpa["vpa.yaml:26"]; f.Fix == nil || f.Fix.Edits[0].Value != `"Off"` {
		t.Errorf("updateMode Auto: fix %+v, want \"Off\"", f.Fix)
	}
	if f := vpa["vpa.yaml:33"]; f.Fix == nil || f.Fix.Edits[0].Value != "updateMode: \"Off\"\n" {
		t.Errorf("no updatePolicy: fix %+v, want an updatePolicy block", f.Fix)
	}
}
