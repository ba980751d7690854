package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/checkstest"
)

// TestFixReadOnlyRootThroughAChartsExtraMounts runs `prodready fix` as a
// process on the corpus's alertmanager chart, whose container mounts and
// pod volumes end with values lists for its users (extraVolumeMounts,
// extraVolumes): the read-only root filesystem's flag, its /tmp mount and
// its emptyDir volume all go to values.yaml, no template changes, and
// check then no longer reports the finding.
func TestFixReadOnlyRootThroughAChartsExtraMounts(t *testing.T) {
	src := checkstest.Shared(t, "corpus/helm-charts/prometheus-community/alertmanager")
	dir := t.TempDir()
	copyTree(t, src, filepath.Join(dir, "am"))
	count := func() int {
		fs, _ := checkJSON(t, dir, "am", "--chart-values", "default")
		return countRules(fs)["readonly-rootfs-missing"]
	}
	if n := count(); n != 1 {
		t.Fatalf("check reports %d readonly-rootfs-missing before the fix, want 1", n)
	}
	out, errOut, code := runCLI(t, dir, "fix", "--rule", "readonly-rootfs-missing", "am")
	if code != 0 || !strings.Contains(out+errOut, "fixed 1 finding") {
		t.Fatalf("prodready fix exited %d, want 0 and one finding fixed\n%s%s", code, out, errOut)
	}
	values := readFile(t, filepath.Join(dir, "am/values.yaml"))
	for _, want := range []string{
		"  runAsGroup: 65534\n  readOnlyRootFilesystem: true\n",
		"extraVolumeMounts:\n  - name: tmp\n    mountPath: /tmp\n",
		"extraVolumes:\n  - name: tmp\n    emptyDir: {}\n",
	} {
		if !strings.Contains(values, want) {
			t.Errorf("the fixed values.yaml lacks %q", want)
		}
	}
	if got, was := readFile(t, filepath.Join(dir, "am/templates/statefulset.yaml")), readFile(t, filepath.Join(src, "templates/statefulset.yaml")); got != was {
		t.Errorf("the fix changed templates/statefulset.yaml; it belongs in values.yaml")
	}
	if n := count(); n != 0 {
		t.Errorf("check still reports %d readonly-rootfs-missing after the fix", n)
	}
}
