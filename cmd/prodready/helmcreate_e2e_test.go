package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFixAllOnHelmCreatesChart runs `prodready fix --all` as a process on
// the chart `helm create` writes (fixtures/render/helm-create, Helm
// v4.3), the one most charts start from: its pod spec and container end
// in `with` blocks the default values leave out, and its selector labels
// come from a helper that names the release. The keys go before the next
// key the template writes as it is, the Deployment's placeholder labels
// after the helper's include that writes its labels, the spread
// constraints select the pods through the same helper (not the labels the
// release named "release" rendered), and `check` then shows none of
// those findings.
func TestFixAllOnHelmCreatesChart(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../fixtures/render/helm-create", filepath.Join(dir, "app"))
	before, _ := checkJSON(t, dir, "app")
	// One replica: the spreads come once fix raises it (a later round).
	fixed := []string{"replicas-too-few", "prestop-hook-missing", "service-account-token-automount"}
	for _, rule := range fixed {
		if countRules(before)[rule] != 1 {
			t.Fatalf("check reports %d of %s before the fix, want 1", countRules(before)[rule], rule)
		}
	}
	out, errOut, code := runCLI(t, dir, "fix", "--all", "app")
	if code != 0 {
		t.Fatalf("prodready fix --all exited %d, want 0\n%s%s", code, out, errOut)
	}
	deployment := readFile(t, filepath.Join(dir, "app/templates/deployment.yaml"))
	for _, want := range []string{
		"    {{- include \"app.labels\" . | nindent 4 }}\n    app.kubernetes.io/component: change-me",
		"      {{- end }}\n      automountServiceAccountToken: false\n      topologySpreadConstraints:\n",
		"          imagePullPolicy: {{ .Values.image.pullPolicy }}\n          lifecycle:\n",
		"                seconds: 5\n          ports:\n",
	} {
		if !strings.Contains(deployment, want) {
			t.Errorf("the fixed deployment.yaml lacks %q:\n%s", want, deployment)
		}
	}
	if n := strings.Count(deployment, "          matchLabels:\n            {{- include \"app.selectorLabels\" . | nindent 12 }}\n"); n != 2 {
		t.Errorf("%d spread constraints select the pods through app.selectorLabels, want 2 (nodes and zones):\n%s", n, deployment)
	}
	if strings.Contains(deployment, "release") {
		t.Errorf("the fixed deployment.yaml names the release this run rendered:\n%s", deployment)
	}
	after, _ := checkJSON(t, dir, "app")
	for _, rule := range append(fixed, "spread-missing", "spread-zone-missing", "render-failed") {
		if n := countRules(after)[rule]; n > 0 {
			t.Errorf("check still reports %d of %s after fix --all", n, rule)
		}
	}
}
