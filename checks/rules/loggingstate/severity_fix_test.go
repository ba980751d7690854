package loggingstate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestLsSeverities checks the severities the rules give the milder cases,
// which the # want: markers do not show.
func TestLsSeverities(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "..", "..", "fixtures", "rules")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		rule string
		want map[string]checks.Severity
	}{
		{"vpa-auto-update", map[string]checks.Severity{"vpa.yaml:26": checks.Warning, "vpa.yaml:33": checks.Info}},
		{"rwo-volume-shared-by-replicas", map[string]checks.Severity{"workloads.yaml:45": checks.Warning, "workloads.yaml:51": checks.Info, "workloads.yaml:92": checks.Warning, "workloads.yaml:133": checks.Warning}},
		{"hpa-min-replicas-too-low", map[string]checks.Severity{"hpa.yaml:8": checks.Warning, "hpa.yaml:16": checks.Warning, "hpa.yaml:53": checks.Warning, "keda.yaml:8": checks.Warning, "keda.yaml:33": checks.Warning}},
	} {
		got := checkstest.Findings(t, sectionCatalog, tt.rule)
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
	hpa := checkstest.Findings(t, sectionCatalog, "hpa-min-replicas-too-low")
	if f := hpa["hpa.yaml:8"]; f.Fix == nil || f.Fix.Edits[0].Value != "2" || f.Fix.Edits[0].Path[1] != "minReplicas" {
		t.Errorf("minReplicas 1: fix %+v, want minReplicas: 2", f.Fix)
	}
	if f := hpa["hpa.yaml:53"]; f.Fix != nil {
		t.Errorf("maxReplicas 1: want no fix, got %+v", f.Fix)
	}
	if f := hpa["keda.yaml:8"]; f.Fix == nil || f.Fix.Edits[0].Value != "2" || f.Fix.Edits[0].Path[1] != "minReplicaCount" {
		t.Errorf("KEDA minReplicaCount 1: fix %+v, want minReplicaCount: 2", f.Fix)
	}
	if f := hpa["keda.yaml:33"]; f.Fix != nil {
		t.Errorf("KEDA maxReplicaCount 1: want no fix, got %+v", f.Fix)
	}
	vpa := checkstest.Findings(t, sectionCatalog, "vpa-auto-update")
	if f := vpa["vpa.yaml:26"]; f.Fix == nil || f.Fix.Edits[0].Value != `"Off"` {
		t.Errorf("updateMode Auto: fix %+v, want \"Off\"", f.Fix)
	}
	if f := vpa["vpa.yaml:33"]; f.Fix == nil || f.Fix.Edits[0].Value != "updateMode: \"Off\"\n" {
		t.Errorf("no updatePolicy: fix %+v, want an updatePolicy block", f.Fix)
	}
}
