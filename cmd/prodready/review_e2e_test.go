package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/checkstest"
)

// featureRepo is a git repository of files committed on main, checked
// out on a new branch feature, for a test to commit a pull request's
// change on (it skips the test when git is not installed).
func featureRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := writeRepo(t, files)
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "base")
	gitIn(t, repo, "checkout", "-q", "-b", "feature")
	return repo
}

// TestReviewCompactCountsAsProcess runs `prodready review -o compact` as a
// process on a git repository whose feature branch adds a Deployment: its
// summary line counts the files and objects the review checked (it said
// "0 files, 0 objects" when the review carried no counts).
func TestReviewCompactCountsAsProcess(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	deploy := func(name string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  selector:\n    matchLabels: {app: " + name + "}\n  template:\n    metadata:\n      labels: {app: " + name + "}\n    spec:\n      containers:\n        - name: " + name + "\n          image: ghcr.io/acme/" + name + ":1.0.0\n"
	}
	repo := featureRepo(t, map[string]string{"deploy/web.yaml": deploy("web")})
	git := func(args ...string) { t.Helper(); gitIn(t, repo, args...) }
	if err := os.WriteFile(filepath.Join(repo, "deploy", "api.yaml"), []byte(deploy("api")), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "api")

	out, errOut, code := runCLI(t, repo, "review", "--base", "main", "-o", "compact")
	if code != 0 {
		t.Fatalf("review -o compact exited %d, want 0 (warnings only): %s", code, errOut)
	}
	last := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	if !regexp.MustCompile(`^2 files, 2 objects: \d+ errors?, \d+ warnings?, \d+ info$`).MatchString(last) {
		t.Errorf("review -o compact ends %q, want the 2 files and 2 objects it checked\n%s", last, out)
	}
	if !strings.Contains(out, "deploy/api.yaml:") || strings.Contains(out, "deploy/web.yaml:") {
		t.Errorf("review -o compact reports other than the added file's findings:\n%s", out)
	}
}

// TestReviewOfAnOverlayAddedOnABaseAsProcess runs `prodready review` as a
// process on a branch that adds an overlay (a namespace and a prefix) on
// a base the main branch builds alone. The base's findings are the same
// problems of the same lines, now about objects the overlay names: they
// are neither fixed nor new. The last binary counted each as fixed and
// again as new, and the base's error, which nobody wrote, failed the
// review.
func TestReviewOfAnOverlayAddedOnABaseAsProcess(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := checkstest.WriteTree(t, map[string]string{
		"app/base/kustomization.yaml": "resources:\n- deploy.yaml\n",
		"app/base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: web}\n" +
			"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: ghcr.io/acme/web:1.0.0\n" +
			"        env:\n        - name: DB_PASSWORD\n          value: hunter2\n",
	})
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "base")
	gitIn(t, repo, "checkout", "-q", "-b", "feature")
	if err := os.MkdirAll(filepath.Join(repo, "app/overlays/prod"), 0o755); err != nil {
		t.Fatal(err)
	}
	kust := "resources:\n- ../../base\nnamespace: shop\nnamePrefix: prod-\n"
	if err := os.WriteFile(filepath.Join(repo, "app/overlays/prod/kustomization.yaml"), []byte(kust), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "prod overlay")

	before, _, _ := runCLI(t, repo, "check", "-o", "compact", "app/base")
	if !strings.Contains(before, "sensitive-env-literal") {
		t.Fatalf("the base has no error to carry over, the test proves nothing:\n%s", before)
	}
	out, errOut, code := runCLI(t, repo, "review", "--base", "main")
	if code != 0 || !strings.Contains(out, "**0 new** · **0 fixed**") {
		t.Errorf("review exited %d, want 0 and nothing new or fixed:\n%s\n%s", code, out, errOut)
	}
}

// TestReviewSuggestsAChartLineFixAloneAsProcess runs `prodready review`
// as a process on a branch that makes a chart's container privileged.
// The container ends with a templated key, so the pod spec's fixes are
// written on lines far above the one changed; the privileged fix stays a
// one-line suggestion of its own. Combined with them, as every fix of a
// document was, it was two ranges and no suggestion at all.
func TestReviewSuggestsAChartLineFixAloneAsProcess(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: web\n" +
		"  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n        - name: web\n          image: ghcr.io/example/web:1.0\n" +
		"          securityContext:\n            runAsNonRoot: true\n          resources:\n            {{- toYaml .Values.resources | nindent 12 }}\n"
	repo := checkstest.WriteTree(t, map[string]string{
		"chart/Chart.yaml":            "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"chart/values.yaml":           "resources: {}\n",
		"chart/templates/deploy.yaml": deploy,
	})
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "base")
	gitIn(t, repo, "checkout", "-q", "-b", "feature")
	privileged := strings.Replace(deploy, "runAsNonRoot: true\n", "runAsNonRoot: true\n            privileged: true\n", 1)
	if err := os.WriteFile(filepath.Join(repo, "chart/templates/deploy.yaml"), []byte(privileged), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "commit", "-q", "-am", "privileged")
	out, errOut, _ := runCLI(t, repo, "review", "--base", "main")
	if !strings.Contains(out, "`privileged-container`") || !strings.Contains(out, "```suggestion\n            privileged: false\n```") {
		t.Errorf("review has no one-line suggestion for the privileged container:\n%s\n%s", out, errOut)
	}
}

// TestReviewSaysWhatIsNotCommittedAsProcess runs `prodready review` as a
// process on a checkout with a file changed and one added but neither
// committed: the review covers the commits base...HEAD, and it says on
// standard error that those two are not in it, rather than reviewing
// without a word what the author has not committed. A clean checkout
// gets no such line.
func TestReviewSaysWhatIsNotCommittedAsProcess(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := checkstest.WriteTree(t, map[string]string{"deploy/web.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n"})
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "base")
	if _, errOut, code := runCLI(t, repo, "review", "--base", "main"); code != 0 || strings.Contains(errOut, "not committed") {
		t.Fatalf("review of a clean checkout (exit %d) says:\n%s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(repo, "deploy/web.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "deploy/api.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, repo, "review", "--base", "main")
	const want = "prodready review: 2 files have changes not committed, so not reviewed (the review covers the commits main...HEAD; commit them to include them): deploy/api.yaml, deploy/web.yaml\n"
	if code != 0 || !strings.Contains(errOut, want) {
		t.Errorf("review (exit %d) says:\n%s\nwant %q", code, errOut, want)
	}
}
