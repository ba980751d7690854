package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
	repo := writeRepo(t, map[string]string{"deploy/web.yaml": deploy("web")})
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	git("checkout", "-q", "-b", "feature")
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
