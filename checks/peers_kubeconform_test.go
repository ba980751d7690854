package checks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// TestPeerKubeconform replays kubeconform's own acceptance fixtures: which
// files it fails (exit 1) and passes, and which of our rules answers.
// kubeconform without -strict ignores unknown and duplicate fields; we always
// decode like the API server does, which refuses them, so we side with its
// -strict mode.
func TestPeerKubeconform(t *testing.T) {
	dir := needShared(t, "peer-fixtures/kubeconform")
	for _, tc := range []struct {
		file      string
		wantFails bool
		why       string
	}{
		{"valid.yaml", false, "kubeconform exits 0"},
		{"invalid.yaml", true, "kubeconform exits 1: replicas is not an integer"},
		{"multi_invalid.yaml", true, "kubeconform exits 1: one document's port is not an integer"},
		{"extra_property.yaml", true, "kubeconform -strict exits 1: DaemonSet has no replicas field"},
		{"duplicate_property.yaml", true, "kubeconform -strict exits 1: containers given twice"},
		{"missing_kind.yaml", false, "kubeconform exits 1 (missing kind); we differ on purpose: YAML without apiVersion and kind is not a Kubernetes object (Prometheus configs, values files) and gets no noise"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			res := checks.Run([]checks.Input{{Path: tc.file, Data: data}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
			fails := false
			for _, f := range res.Findings {
				if f.RuleID == "schema-invalid" || f.RuleID == "yaml-invalid" {
					fails = true
				}
			}
			if fails != tc.wantFails {
				t.Errorf("%s: schema finding = %v, want %v (%s); findings: %+v", tc.file, fails, tc.wantFails, tc.why, res.Findings)
			}
		})
	}
}
