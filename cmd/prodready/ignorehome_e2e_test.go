package main

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testconfig"
)

// TestFixHonoursAnIgnoreWhereCheckReportsAFindingItsFixMoves runs fix as
// a process on the overlays of sharedOverlayBase. The root's
// replicas-too-few is fixed by a patch appended to its kustomization (b
// builds the base's line too), so the verified fix moved the finding
// there; an ignore at the base's line, where check reports it, was not
// read there, and fix patched a workload its author had declined to
// scale.
func TestFixHonoursAnIgnoreWhereCheckReportsAFindingItsFixMoves(t *testing.T) {
	config := testconfig.OnlyRule("replicas-too-few")
	dir := writeRepo(t, sharedOverlayBase(config, ""))
	if _, errOut, code := runCLI(t, dir, "fix", "--all", "."); code != 0 || !strings.Contains(errOut, "fixed 1 finding in 1 file") {
		t.Fatalf("fix without the ignore: exit %d\n%s", code, errOut)
	}
	if got := readFile(t, filepath.Join(dir, "kustomization.yaml")); !strings.Contains(got, "replicas: 3") {
		t.Fatalf("kustomization.yaml after fix, want a patch of its replicas:\n%s", got)
	}
	files := sharedOverlayBase(config, " # prodready:ignore replicas-too-few one pod is enough where no overlay says more")
	dir = writeRepo(t, files)
	_, errOut, code := runCLI(t, dir, "fix", "--all", ".")
	if got := readFile(t, filepath.Join(dir, "kustomization.yaml")); code != 0 || got != files["kustomization.yaml"] {
		t.Errorf("fix with the ignore (exit %d):\n%s\nkustomization.yaml:\n%s\nwant it unchanged", code, errOut, got)
	}
}

// TestServeListsABaseFindingWhereCheckDoes runs serve as a process on a
// pull request that changes the root kustomization of sharedOverlayBase
// (an annotation). Its pre-existing replicas-too-few is the base's, where
// check reports it; its fix is a patch of the root kustomization, which
// the pull request changes, and the review listed it among the
// pre-existing findings of the changed files, at that kustomization's
// first line (on microservices-demo, 65 of them at its resources:).
func TestServeListsABaseFindingWhereCheckDoes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	config := testconfig.OnlyRule("replicas-too-few")
	base := sharedOverlayBase(config, "")
	head := sharedOverlayBase(config, "")
	head["kustomization.yaml"] = "resources:\n  - base\ncommonAnnotations:\n  team: web\n"
	fake := reviewOpened(t, base, head)
	run, _ := runOn(fake, headSHA(0))
	if run.Title != "No new findings" || !strings.Contains(run.Summary, "**0 pre-existing**") || len(run.Annotations) != 0 {
		t.Errorf("check run %q, annotations %+v, summary:\n%s\nwant nothing new and nothing pre-existing in the changed files", run.Title, run.Annotations, run.Summary)
	}
}

// TestServeCommentsAtTheBaseLineABaseFindingIsAt runs serve as a process
// on a pull request that adds a Deployment to sharedOverlayBase's base,
// overlays/b patching every Deployment's replicas. The root's new
// replicas-too-few is fixed by a patch of its kustomization, which the
// pull request does not change: it was an annotation there ("new in this
// pull request, though it does not change this file"); it is commented
// on the base's line the pull request adds, where check reports it, its
// fix described, not suggested.
func TestServeCommentsAtTheBaseLineABaseFindingIsAt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	base := sharedOverlayBase(testconfig.OnlyRule("replicas-too-few"), "")
	base["overlays/b/kustomization.yaml"] = strings.Replace(base["overlays/b/kustomization.yaml"], "      name: web\n", "", 1)
	head := maps.Clone(base)
	head["base/kustomization.yaml"] = "resources:\n  - deploy.yaml\n  - api.yaml\n"
	head["base/api.yaml"] = strings.ReplaceAll(strings.ReplaceAll(base["base/deploy.yaml"], "name: web", "name: api"), "app: web", "app: api")
	cm := onlyComment(t, reviewOpened(t, base, head))
	if cm.Path != "base/api.yaml" || cm.Line != 7 || strings.Contains(cm.Body, "```suggestion") ||
		!strings.Contains(cm.Body, "not a suggestion here: it edits `kustomization.yaml`, which this pull request does not change") {
		t.Errorf("comment = %s:%d\n%s\nwant one at base/api.yaml:7 that describes the root kustomization's patch", cm.Path, cm.Line, cm.Body)
	}
}
