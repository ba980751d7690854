package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kyvernoHARules are the rules that judge whether Kyverno is installed
// highly available.
var kyvernoHARules = map[string]bool{"kyverno-replicas": true, "kyverno-pdb": true, "kyverno-resources": true, "kyverno-spread": true, "kyverno-controller-resources": true}

// TestVendoredKyvernoChartValues runs `prodready check` as a process on the
// real kyverno chart vendored in a repository: with its defaults, the HA
// rules fire at the lines of its values.yaml the author edits
// (admissionController.replicas, its PodDisruptionBudget, its memory
// limit); with an HA values set beside it, they go quiet.
func TestVendoredKyvernoChartValues(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "corpus", "charts-more", "kyverno")
	if _, err := os.Stat(src); err != nil {
		t.Skip("../shared/corpus/charts-more/kyverno is absent")
	}
	repo := writeRepo(t, nil)
	chart := filepath.Join(repo, "platform", "kyverno")
	copyTree(t, src, chart)

	fs, _ := checkJSON(t, repo, ".")
	got := byKey(fs)
	for _, want := range []string{
		"platform/kyverno/values.yaml:1072 kyverno-replicas",  // admissionController.replicas: ~
		"platform/kyverno/values.yaml:1229 kyverno-pdb",       // admissionController.podDisruptionBudget
		"platform/kyverno/values.yaml:1332 kyverno-resources", // admissionController.container.resources.limits.memory: 384Mi
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("defaults: no %s", want)
		}
	}

	ha := "admissionController:\n  replicas: 3\n  container:\n    resources:\n      limits:\n        memory: 512Mi\n" +
		"      requests:\n        cpu: 100m\n        memory: 256Mi\nbackgroundController:\n  replicas: 2\n" +
		"cleanupController:\n  replicas: 2\nreportsController:\n  replicas: 2\n"
	if err := os.WriteFile(filepath.Join(chart, "values-ha.yaml"), []byte(ha), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, _ = checkJSON(t, repo, ".")
	for _, f := range fs {
		if kyvernoHARules[f.Rule] {
			t.Errorf("HA values set: %s:%d %s %s", f.File, f.Line, f.Rule, f.Message)
		}
	}
	// The set is read: one replica in it is reported there.
	if err := os.WriteFile(filepath.Join(chart, "values-ha.yaml"), []byte(strings.Replace(ha, "replicas: 3", "replicas: 1", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, _ = checkJSON(t, repo, ".")
	if _, ok := byKey(fs)["platform/kyverno/values-ha.yaml:2 kyverno-replicas"]; !ok {
		t.Errorf("one replica in values-ha.yaml is not reported there: %v", keysOf(byKey(fs)))
	}
}
