package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/fakegitlab"
)

// linkedRepo is a repository whose deploy/prod.yaml is a symbolic link to
// a manifest kept elsewhere (shared/web.yaml): git keeps the link's
// target path as its content.
func linkedRepo() map[string]string {
	return map[string]string{
		"shared/web.yaml":  replicaManifest("http"),
		"deploy/prod.yaml": "../shared/web.yaml",
	}
}

// TestCheckNamesALinkItDoesNotFollow runs check as a process on a folder
// holding a symbolic link with a YAML name: it is listed as not checked,
// with why, and what it links to is checked at its own path.
func TestCheckNamesALinkItDoesNotFollow(t *testing.T) {
	files := linkedRepo()
	delete(files, "deploy/prod.yaml")
	repo := writeRepo(t, files)
	if err := os.MkdirAll(filepath.Join(repo, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../shared/web.yaml", filepath.Join(repo, "deploy", "prod.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	out, errOut, code := runCLI(t, repo, "check", "-o", "compact", ".")
	if code == 2 || !strings.Contains(out, "deploy/prod.yaml: not checked: a symbolic link: links are not followed") ||
		!strings.Contains(out, "shared/web.yaml:") || !strings.Contains(out, "2 files (1 not checked), 1 object") {
		t.Errorf("check exited %d:\n%s%s\nwant the link named as not checked and shared/web.yaml checked", code, out, errOut)
	}
}

// TestReviewNamesALinkThePullRequestAdds runs review as a process on a git
// repository whose branch adds a link with a YAML name, and serve, with the
// flags deploy/ uses, against the fake GitHub on the same pull request:
// each names the link among the files not checked, says why, and reads
// nothing through it.
func TestReviewNamesALinkThePullRequestAdds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes; skipped with -short")
	}
	t.Run("review", func(t *testing.T) {
		files := linkedRepo()
		delete(files, "deploy/prod.yaml")
		repo := featureRepo(t, files)
		git := func(args ...string) { t.Helper(); gitIn(t, repo, args...) }
		if err := os.MkdirAll(filepath.Join(repo, "deploy"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../shared/web.yaml", filepath.Join(repo, "deploy", "prod.yaml")); err != nil {
			t.Skip("no symbolic links here:", err)
		}
		git("add", ".")
		git("commit", "-q", "-m", "prod")
		out, errOut, code := runCLI(t, repo, "review", "--base", "main")
		if code != 0 || !strings.Contains(out, "deploy/prod.yaml") || !strings.Contains(out, bot.SymbolicLink) {
			t.Errorf("review exited %d:\n%s%s\nwant deploy/prod.yaml named as not checked: %s", code, out, errOut, bot.SymbolicLink)
		}
	})
	t.Run("serve", func(t *testing.T) {
		base := linkedRepo()
		delete(base, "deploy/prod.yaml")
		fake := reviewOpenedWith(t, base, linkedRepo(), func(fake *fakegithub.Server) {
			fake.SetTreeMode("acme", "web", headSHA(0), "deploy/prod.yaml", "120000")
		})
		var run fakegithub.CheckRun
		for _, cr := range fake.CheckRuns("acme", "web") {
			if cr.HeadSHA == headSHA(0) && cr.Status == "completed" {
				run = cr
			}
		}
		text := run.Summary + run.Text
		if run.Conclusion != "success" || !strings.Contains(text, "deploy/prod.yaml") || !strings.Contains(text, bot.SymbolicLink) {
			t.Errorf("check run %s:\n%s\nwant deploy/prod.yaml named as not checked: %s", run.Conclusion, text, bot.SymbolicLink)
		}
		for _, rv := range fake.Reviews("acme", "web") {
			for _, c := range rv.Comments {
				if c.Path == "deploy/prod.yaml" {
					t.Errorf("a comment on the link: %+v", c)
				}
			}
		}
		if n := fake.Count(fakegithub.RouteBlob); n > 1 {
			t.Errorf("%d blob requests, want at most shared/web.yaml's: the link is not read\n%s", n, fake.TallyString())
		}
	})
	t.Run("serve GitLab", func(t *testing.T) {
		const project, token, secret = 7, "glpat-links", "links-secret"
		base := linkedRepo()
		delete(base, "deploy/prod.yaml")
		gl := fakegitlab.New(token)
		t.Cleanup(gl.Close)
		gl.AddProject(project, "g/app")
		baseSHA := gl.PushBranch(project, "main", "init", base)
		gl.SetBranch(project, "feature", baseSHA)
		head := gl.PushBranch(project, "feature", "prod", linkedRepo())
		gl.SetTreeMode(project, head, "deploy/prod.yaml", "120000")
		gl.Push(project, 1, baseSHA, head, 0)
		gl.SetMember(project, gl.User.ID, fakegitlab.Maintainer)
		r := startGitLabServe(t, "links", gl, token, secret)
		if code := r.deliverGitLab(t, secret, "Merge Request Hook", "mr-open", mergeRequestOpened(project, 0, head)); code != http.StatusAccepted {
			t.Fatalf("Merge Request Hook: %d", code)
		}
		waitForGitLabReview(t, gl, head)
		var summary string
		for _, d := range gl.Discussions(project, 1) {
			for _, n := range d.Notes {
				if n.Author.ID == gl.User.ID && n.Position == nil {
					summary += n.Body
				}
				if n.Position != nil && n.Position.NewPath == "deploy/prod.yaml" {
					t.Errorf("a thread on the link: %s", n.Body)
				}
			}
		}
		if !strings.Contains(summary, "deploy/prod.yaml") || !strings.Contains(summary, bot.SymbolicLink) {
			t.Errorf("summary note:\n%s\nwant deploy/prod.yaml named as not checked: %s", summary, bot.SymbolicLink)
		}
	})
}

// TestActionSarifNamesALinkThePullRequestAdds runs the Action's sarif
// mode as a process on a pull request that adds a manifest and a link to
// it: the SARIF file names the link as not checked, with why, and holds
// the manifest's findings.
func TestActionSarifNamesALinkThePullRequestAdds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the action as a process; skipped with -short")
	}
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "web.yaml"), []byte(replicaManifest("http")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := addingRepo(t, src, "deploy")
	if err := os.Symlink("web.yaml", filepath.Join(r.dir, "deploy", "prod.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	gitIn(t, r.dir, "add", ".")
	gitIn(t, r.dir, "commit", "-q", "-m", "prod")
	r.head = gitIn(t, r.dir, "rev-parse", "HEAD")
	fake := newActionFake(t, r, "acme", "deploys", 7)
	sarif := filepath.Join(t.TempDir(), "prodready.sarif")
	_, out, code := runActionProcess(t, fake, r, "--mode", "sarif", "--sarif-file", sarif)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (no error)\n%s", code, out)
	}
	text := readFile(t, sarif)
	if !strings.Contains(text, "not checked: "+bot.SymbolicLink) || !strings.Contains(text, "deploy/prod.yaml") || !strings.Contains(text, "deploy/web.yaml") {
		t.Errorf("SARIF:\n%s\nwant deploy/prod.yaml named as not checked (%s) and deploy/web.yaml's findings", text, bot.SymbolicLink)
	}
}
