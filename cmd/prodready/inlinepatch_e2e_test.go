package main

import (
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
// line, which says false); an ignore there silences it; and fix edits
// that line of the patch (an edit of the base would change nothing: the
// whole repository is fixed, base included), and the finding is gone.
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
	got := readFile(t, filepath.Join(dir, "prod", "kustomization.yaml"))
	if want := strings.Replace(inlinePatchOverlay("")["prod/kustomization.yaml"], "allowPrivilegeEscalation: true", "allowPrivilegeEscalation: false", 1); got != want {
		t.Errorf("prod/kustomization.yaml after fix:\n%s\nwant its patch's line set to false:\n%s", got, want)
	}
	if fs, _ := checkJSON(t, dir, "prod"); len(fs) != 0 {
		t.Errorf("after the fix: %+v, want none", fs)
	}
}

// TestFixMakesManyFixesOfOneInlinePatchAtOnce runs fix as a process on an
// overlay whose patch of its own text sets a container's securityContext,
// with every rule on: eight fixes write that one patch again, each alone
// verified; made together they are one edit (each writing the whole patch,
// the last undid the others, and fix gave up after its rounds). No
// warning is left.
func TestFixMakesManyFixesOfOneInlinePatchAtOnce(t *testing.T) {
	files := inlinePatchOverlay("")
	delete(files, ".prodready.yaml")
	dir := writeRepo(t, files)
	_, errOut, code := runCLI(t, dir, "fix", "--all", "prod")
	if code != 0 || strings.Contains(errOut, "still changed") || !strings.Contains(errOut, "fixed ") {
		t.Fatalf("fix: exit %d\n%s", code, errOut)
	}
	fs, _ := checkJSON(t, dir, "prod")
	for _, f := range fs {
		if f.Severity != "info" {
			t.Errorf("after the fix: %s %s at %s:%d", f.Severity, f.Rule, f.File, f.Line)
		}
	}
	got := readFile(t, filepath.Join(dir, "prod", "kustomization.yaml"))
	if !strings.Contains(got, "allowPrivilegeEscalation: false") || strings.Contains(got, "allowPrivilegeEscalation: true") {
		t.Errorf("prod/kustomization.yaml after fix, want its patch's setting made false:\n%s", got)
	}
}

// TestServeSuggestsTheFixInAnInlinePatch runs serve as a process on a
// pull request that turns the overlay's own patch's setting to true: the
// review comments on that line of the kustomization, with a suggestion
// that sets it back in place (it was an annotation on the base's line).
func TestServeSuggestsTheFixInAnInlinePatch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	base := inlinePatchOverlay("")
	base["prod/kustomization.yaml"] = strings.Replace(base["prod/kustomization.yaml"], "allowPrivilegeEscalation: true", "allowPrivilegeEscalation: false", 1)
	cm := onlyComment(t, reviewOpened(t, base, inlinePatchOverlay("")))
	if cm.Path != "prod/kustomization.yaml" || cm.Line != 14 ||
		!strings.Contains(cm.Body, "`privilege-escalation-allowed`") ||
		!strings.Contains(cm.Body, "```suggestion\n            securityContext: {allowPrivilegeEscalation: false}\n```") {
		t.Errorf("comment = %s:%d\n%s\nwant one at prod/kustomization.yaml:14 suggesting false on that line", cm.Path, cm.Line, cm.Body)
	}
}

// TestFixSetsTheValueOfAnInlineJSONPatch runs check and fix as processes
// on an overlay whose kustomization replaces a served Deployment's
// replicas with 1 in a JSON 6902 patch of its own text: replicas-too-few
// is on that operation's value line, and fix sets that value (it was a
// second patch appended to replace the first's value again).
func TestFixSetsTheValueOfAnInlineJSONPatch(t *testing.T) {
	files := replicasOverlay("1", "replicas-too-few")
	files["prod/kustomization.yaml"] = "resources:\n- ../base\npatches:\n- target: {kind: Deployment, name: web}\n  patch: |-\n" +
		"    - op: replace\n      path: /spec/replicas\n      value: 1\n    - op: add\n      path: /spec/revisionHistoryLimit\n      value: 3\n"
	dir := writeRepo(t, files)
	fs, _ := checkJSON(t, dir, "prod")
	if len(fs) != 1 || fs[0].Rule != "replicas-too-few" || fs[0].File != "prod/kustomization.yaml" || fs[0].Line != 8 {
		t.Fatalf("findings = %+v, want replicas-too-few at prod/kustomization.yaml:8", fs)
	}
	if _, errOut, code := runCLI(t, dir, "fix", "--all", "prod"); code != 0 || !strings.Contains(errOut, "fixed 1 finding in 1 file") {
		t.Fatalf("fix: exit %d\n%s", code, errOut)
	}
	got := readFile(t, filepath.Join(dir, "prod", "kustomization.yaml"))
	if want := strings.Replace(files["prod/kustomization.yaml"], "value: 1", "value: 3", 1); got != want {
		t.Errorf("prod/kustomization.yaml after fix:\n%s\nwant the operation's value set to 3:\n%s", got, want)
	}
}

// TestServeGitLabSuggestsTheFixInAnInlinePatch is
// TestServeSuggestsTheFixInAnInlinePatch against the fake GitLab: the
// merge request's one diff thread is on the patch's line of the
// kustomization, with a suggestion of that one line.
func TestServeGitLabSuggestsTheFixInAnInlinePatch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	base := inlinePatchOverlay("")
	base["prod/kustomization.yaml"] = strings.Replace(base["prod/kustomization.yaml"], "allowPrivilegeEscalation: true", "allowPrivilegeEscalation: false", 1)
	threads := gitLabReviewThreads(t, "gitlab-inlinepatch", 8, 502, base, inlinePatchOverlay(""))
	if len(threads) != 1 || !strings.HasPrefix(threads[0], "prod/kustomization.yaml:14\n") ||
		!strings.Contains(threads[0], "```suggestion:-0+0\n            securityContext: {allowPrivilegeEscalation: false}\n```") {
		t.Errorf("want one diff thread at prod/kustomization.yaml:14 suggesting false on that line; got %q", threads)
	}
}

// TestFixSetsTheValueOfAJSONPatchFile is
// TestFixSetsTheValueOfAnInlineJSONPatch with the operation in a patch
// file the kustomization names: fix sets its value there, and the
// kustomization stays as it was (it gained a second patch).
func TestFixSetsTheValueOfAJSONPatchFile(t *testing.T) {
	files := replicasOverlay("1", "replicas-too-few")
	files["prod/kustomization.yaml"] = "resources:\n- ../base\npatches:\n- path: replicas.yaml\n  target: {kind: Deployment, name: web}\n"
	files["prod/replicas.yaml"] = "- op: replace\n  path: /spec/replicas\n  value: 1\n"
	dir := writeRepo(t, files)
	fs, _ := checkJSON(t, dir, "prod")
	if len(fs) != 1 || fs[0].Rule != "replicas-too-few" || fs[0].File != "prod/replicas.yaml" || fs[0].Line != 3 {
		t.Fatalf("findings = %+v, want replicas-too-few at prod/replicas.yaml:3", fs)
	}
	if _, errOut, code := runCLI(t, dir, "fix", "--all", "prod"); code != 0 || !strings.Contains(errOut, "fixed 1 finding in 1 file") {
		t.Fatalf("fix: exit %d\n%s", code, errOut)
	}
	if got := readFile(t, filepath.Join(dir, "prod", "replicas.yaml")); got != "- op: replace\n  path: /spec/replicas\n  value: 3\n" {
		t.Errorf("prod/replicas.yaml after fix:\n%s\nwant its value set to 3", got)
	}
	if got := readFile(t, filepath.Join(dir, "prod", "kustomization.yaml")); got != files["prod/kustomization.yaml"] {
		t.Errorf("prod/kustomization.yaml after fix:\n%s\nwant it as it was", got)
	}
}
