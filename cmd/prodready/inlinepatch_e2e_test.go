package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testconfig"
)

// inlinePatchOverlay is an overlay whose kustomization writes a patch of
// its own (a literal block) that lets the base's container escalate
// privileges; line 14 of prod/kustomization.yaml is that setting, and
// comment is written after it.
func inlinePatchOverlay(comment string) map[string]string {
	return map[string]string{
		".prodready.yaml":         testconfig.OnlyRule("privilege-escalation-allowed"),
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"base/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" +
			"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n" +
			"      - name: web\n        image: ghcr.io/acme/web:1.0\n        securityContext:\n          allowPrivilegeEscalation: false\n",
		"prod/kustomization.yaml": "resources:\n- ../base\npatches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n" +
			"    spec:\n      template:\n        spec:\n          containers:\n          - name: web\n            securityContext: {allowPrivilegeEscalation: true}" + comment + "\n",
	}
}

// TestCheckAndFixAKeyAnInlinePatchSets runs check and fix as processes on
// an overlay whose kustomization sets a key in a patch of its own text.
// The finding is on that line of the kustomization (it was on the base's
// line, which says false); an ignore there silences it; and fix appends a
// patch after it, which the build applies last (an edit of the base would
// change nothing: the whole repository is fixed, base included), and
// the finding is gone.
func TestCheckAndFixAKeyAnInlinePatchSets(t *testing.T) {
	dir := writeRepo(t, inlinePatchOverlay(""))
	fs, _ := checkJSON(t, dir, "prod")
	if len(fs) != 1 || fs[0].File != "prod/kustomization.yaml" || fs[0].Line != 14 {
		t.Fatalf("findings = %+v, want privilege-escalation-allowed at prod/kustomization.yaml:14", fs)
	}
	if fs, _ := checkJSON(t, writeRepo(t, inlinePatchOverlay(" # prodready:ignore privilege-escalation-allowed it runs setuid tools")), "prod"); len(fs) != 0 {
		t.Errorf("with an ignore on the patch's line: %+v, want none", fs)
	}
	if _, errOut, code := runCLI(t, dir, "fix", "--all", "."); code != 0 || !strings.Contains(errOut, "fixed 1 finding in 1 file") {
		t.Fatalf("fix: exit %d\n%s", code, errOut)
	}
	got, err := os.ReadFile(filepath.Join(dir, "prod", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), inlinePatchOverlay("")["prod/kustomization.yaml"]) || !strings.Contains(string(got), "allowPrivilegeEscalation: false") {
		t.Errorf("prod/kustomization.yaml after fix, want its patch kept and one appended that sets false:\n%s", got)
	}
	if fs, _ := checkJSON(t, dir, "prod"); len(fs) != 0 {
		t.Errorf("after the fix: %+v, want none", fs)
	}
}
