package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigErrorsAsTheBinarySaysThem runs `prodready check` as a process on
// a folder whose .prodready.yaml is wrong in several places: it refuses to
// run, naming every problem with its line at once, and checks nothing.
// --kubernetes-version 2.0 is refused as the config's key is, not read as
// 1.0.
func TestConfigErrorsAsTheBinarySaysThem(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("web.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {a: b}\n")
	write(".prodready.yaml", "kubernetesVersion: 2.0\nrules:\n  replicas-too-few: {minReplicas: three}\n  webhook-timeout:\n    max: 2.5\n")
	out, errOut, code := runCLI(t, dir, "check", ".")
	if code == 0 {
		t.Fatalf("exit 0 with a broken config\n%s%s", out, errOut)
	}
	for _, want := range []string{
		`.prodready.yaml: line 1: kubernetesVersion: "2.0" is not a Kubernetes release: they are 1.x (1.33, v1.33.2)`,
		`.prodready.yaml: line 3: rules.replicas-too-few.minReplicas: want a whole number from 2 up, not "three"`,
		`.prodready.yaml: line 5: rules.webhook-timeout.max: want a whole number from 1 to 30, not 2.5`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out, "ConfigMap") || strings.Contains(out, "objects") {
		t.Errorf("it checked with a broken config:\n%s", out)
	}

	if err := os.Remove(filepath.Join(dir, ".prodready.yaml")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLI(t, dir, "check", "--kubernetes-version", "2.0", ".")
	if code == 0 || !strings.Contains(errOut, `"2.0" is not a Kubernetes release`) {
		t.Errorf("--kubernetes-version 2.0: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code = runCLI(t, dir, "check", "--kubernetes-version", "v1.29.4", "."); code != 0 {
		t.Errorf("--kubernetes-version v1.29.4: exit %d\n%s%s", code, out, errOut)
	}
}
