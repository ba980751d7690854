package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// unmatchedOverlay is a base Deployment and an overlay whose patch
// targets it by name (target is the name).
func unmatchedOverlay(target string) map[string]string {
	return map[string]string{
		"deploy/base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"deploy/base/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n" +
			"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n",
		"deploy/prod/kustomization.yaml": "resources:\n- ../base\nnamePrefix: prod-\npatches:\n- target:\n    kind: Deployment\n    name: " + target +
			"\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n",
	}
}

// TestCheckSaysAPatchSelectsNothing runs check as a process on an overlay
// whose patch names its Deployment by the name it has once built: the
// patch runs before the overlay's namePrefix, so kustomize applies it to
// nothing, and check says so at the target's name, naming the name to
// use. Switched off in the config, it says nothing.
func TestCheckSaysAPatchSelectsNothing(t *testing.T) {
	dir := writeRepo(t, unmatchedOverlay("prod-web"))
	if err := os.WriteFile(filepath.Join(dir, ".prodready.yaml"), []byte(testconfig.OnlyRule("kustomize-patch-unmatched")), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, dir, "check", "-o", "json", ".")
	if code != 0 {
		t.Fatalf("exit %d (a warning does not fail the run):\n%s", code, stderr)
	}
	var out struct {
		Findings []struct {
			Rule, File, Message string
			Line                int
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if len(out.Findings) != 1 {
		t.Fatalf("findings = %+v, want the patch's", out.Findings)
	}
	f := out.Findings[0]
	if f.Rule != "kustomize-patch-unmatched" || f.File != "deploy/prod/kustomization.yaml" || f.Line != 7 ||
		!strings.Contains(f.Message, "select it as web") || !strings.Contains(f.Message, "overlay deploy/prod") {
		t.Errorf("finding = %+v, want kustomize-patch-unmatched at deploy/prod/kustomization.yaml:7 saying to select it as web", f)
	}
	if err := os.WriteFile(filepath.Join(dir, ".prodready.yaml"), []byte("rules:\n  kustomize-patch-unmatched: false\n"), 0o644); err != nil { // every other rule on
		t.Fatal(err)
	}
	stdout, stderr, _ = runCLI(t, dir, "check", "-o", "json", ".")
	if strings.Contains(stdout, "kustomize-patch-unmatched") {
		t.Errorf("switched off in the config, the rule still reports:\n%s\n%s", stdout, stderr)
	}
}

// TestServeReviewsATargetThatSelectsNothing runs serve as a process (its
// renders in a child process) on a pull request that mistypes an
// overlay's patch target, and on one that mistypes a replacement's target
// in the replacement's own file: the review comments on the target's
// name, in the file it is written in, suggesting the object's name.
func TestServeReviewsATargetThatSelectsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	for _, c := range []struct {
		rule string
		repo func(target string) map[string]string
		path string
		line int
	}{
		{"kustomize-patch-unmatched", unmatchedOverlay, "deploy/prod/kustomization.yaml", 7},
		{"kustomize-replacement-unmatched", replacementOverlay, "deploy/prod/host.yaml", 8},
	} {
		t.Run(c.rule, func(t *testing.T) {
			config := testconfig.OnlyRule(c.rule)
			base, head := c.repo("web"), c.repo("wbe")
			base[".prodready.yaml"], head[".prodready.yaml"] = config, config
			fake := reviewOpened(t, base, head)
			var comments []fakegithub.Comment
			for _, rv := range fake.Reviews("acme", "web") {
				comments = append(comments, rv.Comments...)
			}
			if len(comments) != 1 {
				t.Fatalf("comments = %+v, want one on the target", comments)
			}
			if cm := comments[0]; cm.Path != c.path || cm.Line != c.line || !strings.Contains(cm.Body, c.rule) || !strings.Contains(cm.Body, "did you mean Deployment web?") {
				t.Errorf("comment = %s:%d %q, want one at %s:%d asking about Deployment web", cm.Path, cm.Line, cm.Body, c.path, c.line)
			}
		})
	}
}

// replacementOverlay is a base Deployment and ConfigMap, and an overlay
// whose replacement, in a file of its own, copies the ConfigMap's host
// into the Deployment it targets by name (target is the name).
func replacementOverlay(target string) map[string]string {
	files := unmatchedOverlay("web")
	files["deploy/base/kustomization.yaml"] = "resources:\n- deployment.yaml\n- settings.yaml\n"
	files["deploy/base/settings.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  host: api.example.com\n"
	files["deploy/prod/kustomization.yaml"] = "resources:\n- ../base\nnamePrefix: prod-\nreplacements:\n- path: host.yaml\n"
	// Line 6 is the select, 7 its kind, 8 its name.
	files["deploy/prod/host.yaml"] = "source:\n  kind: ConfigMap\n  name: settings\n  fieldPath: data.host\ntargets:\n- select:\n    kind: Deployment\n    name: " + target +
		"\n  fieldPaths:\n  - metadata.annotations.host\n  options:\n    create: true\n"
	return files
}

// TestCheckSaysAReplacementSelectsNothing runs check as a process on an
// overlay whose replacement, in its own file, mistypes its target: the
// finding is in that file at the target's name, and the file is not
// listed as unchecked. With the name kustomize selects it by, nothing is
// said.
func TestCheckSaysAReplacementSelectsNothing(t *testing.T) {
	dir := writeRepo(t, replacementOverlay("wbe"))
	if err := os.WriteFile(filepath.Join(dir, ".prodready.yaml"), []byte(testconfig.OnlyRule("kustomize-replacement-unmatched")), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, dir, "check", ".")
	if code != 0 {
		t.Fatalf("exit %d (a warning does not fail the run):\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "deploy/prod/host.yaml\n  8:1 ") || !strings.Contains(stdout, "targets[0] of the replacement of this file (select kind: Deployment, name: wbe) selects no object") ||
		!strings.Contains(stdout, "did you mean Deployment web?") || strings.Contains(stdout, "Not checked") {
		t.Errorf("check says:\n%s\nwant the target at deploy/prod/host.yaml:8, asking about Deployment web, and nothing unchecked", stdout)
	}
	for _, name := range []string{"web", "prod-web"} {
		dir := writeRepo(t, replacementOverlay(name))
		if err := os.WriteFile(filepath.Join(dir, ".prodready.yaml"), []byte(testconfig.OnlyRule("kustomize-replacement-unmatched")), 0o644); err != nil {
			t.Fatal(err)
		}
		if stdout, _, _ := runCLI(t, dir, "check", "."); strings.Contains(stdout, "kustomize-replacement-unmatched") {
			t.Errorf("a target named %s, which kustomize selects, reported:\n%s", name, stdout)
		}
	}
}
