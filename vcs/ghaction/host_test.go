package ghaction

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
)

// git runs git in dir for a test, failing it on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestChangedFilesDiffsAgainstTheMergeBase checks that the pull request's
// diff is taken from the merge base, as GitHub shows it: when the base
// branch moved on, its own changes are not in the diff.
func TestChangedFilesDiffsAgainstTheMergeBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q", "-b", "main")
	write("x: 1\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "base")
	git(t, dir, "checkout", "-q", "-b", "feature")
	write("x: 1\ny: 2\n")
	git(t, dir, "commit", "-q", "-am", "head")
	head := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", "main")
	write("# base moved on\nx: 1\n")
	git(t, dir, "commit", "-q", "-am", "tip")
	tip := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "-q", head)

	h := &Host{Dir: dir}
	files, err := h.ChangedFiles(context.Background(), bot.PullRequest{BaseSHA: tip, HeadSHA: head})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "app.yaml" || h.DiffSource != "git" {
		t.Fatalf("files %+v from %q, want app.yaml from git", files, h.DiffSource)
	}
	if p := files[0].Patch; !strings.Contains(p, "+y: 2") || strings.Contains(p, "base moved on") {
		t.Errorf("the patch is not the head's change against the merge base:\n%s", p)
	}
}
