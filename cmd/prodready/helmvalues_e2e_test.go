package main

import (
	"strings"
	"testing"
)

// TestConfigNamedValuesFileIsChecked runs `prodready check` as a process
// on a repository whose .prodready.yaml names a Kyverno values file under
// helmValues (a name without "values" in it): clean, it is checked, not
// "not checked", and the run exits 0 (it exited 2, nothing checked); with
// one replica, the Kyverno rules report it there.
func TestConfigNamedValuesFileIsChecked(t *testing.T) {
	config := "helmValues:\n  - path: platform/kyverno-prod.yaml\n    chart: kyverno\n    version: 3.2.9\n"
	ha := "admissionController:\n  replicas: 3\n  container:\n    resources:\n      limits:\n        memory: 512Mi\n" +
		"      requests:\n        cpu: 100m\n        memory: 256Mi\nbackgroundController:\n  replicas: 2\n" +
		"cleanupController:\n  replicas: 2\nreportsController:\n  replicas: 2\n"
	repo := writeRepo(t, map[string]string{".prodready.yaml": config, "platform/kyverno-prod.yaml": ha})
	out, errOut, code := runCLI(t, repo, "check", ".")
	if code != 0 || strings.Contains(out, "not checked") || strings.Contains(errOut, "nothing was checked") {
		t.Errorf("a clean values file named in the config: exit %d, want 0 and nothing \"not checked\":\n%s\n%s", code, out, errOut)
	}
	repo = writeRepo(t, map[string]string{".prodready.yaml": config, "platform/kyverno-prod.yaml": strings.Replace(ha, "replicas: 3", "replicas: 1", 1)})
	fs, code := checkJSON(t, repo, ".")
	if _, ok := byKey(fs)["platform/kyverno-prod.yaml:2 kyverno-replicas"]; !ok || code != 0 {
		t.Errorf("one replica: exit %d, findings %v; want kyverno-replicas at platform/kyverno-prod.yaml:2, exit 0 (a warning)", code, keysOf(byKey(fs)))
	}
}
