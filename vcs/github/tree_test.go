package github_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/fakegithub"
)

// TestManifestsListATruncatedTreeWhole reads the manifests of a commit
// whose recursive tree listing GitHub truncates: the host lists it again
// folder by folder, as GitHub's documentation says to, and returns every
// file, a deep one too; a tree that even so takes more requests than the
// host allows is an error that says so, not a part of it.
func TestManifestsListATruncatedTreeWhole(t *testing.T) {
	const owner, name = "acme", "monorepo"
	keyPEM, pub := testKey(t)
	fake := fakegithub.New(testAppID, pub)
	defer fake.Close()
	fake.TreeLimit = 4
	files := map[string]string{"root.yaml": costManifest(0, "1.0.0", "x")}
	for i := range 3 {
		for j := range 3 {
			files[fmt.Sprintf("team-%d/app-%d.yaml", i, j)] = costManifest(10*i+j, "1.0.0", "x")
		}
	}
	files["team-2/deep/er/still.yaml"] = costManifest(99, "1.0.0", "x")
	sha := strings.Repeat("d", 40)
	fake.AddCommit(owner, name, sha, files)
	h := installationHost(t, keyPEM, fake)
	pr := bot.PullRequest{Repo: owner + "/" + name, Number: 1, HeadSHA: sha}
	got, err := h.Manifests(context.Background(), pr, sha, bot.WantEach(func(p string) bool { return strings.HasSuffix(p, ".yaml") }), nil)
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, f := range got {
		if string(f.Data) != files[f.Path] {
			t.Errorf("%s: %q, want its content", f.Path, f.Data)
		}
		read[f.Path] = true
	}
	for p := range files {
		if !read[p] {
			t.Errorf("%s not listed: the truncated listing was taken as the tree", p)
		}
	}
	if n := fake.Count(fakegithub.RouteTree); n < 2 {
		t.Errorf("%d tree requests, want the truncated one and the folders' after it", n)
	}

	// Over the host's bound on tree requests: 250 folders of 5 files,
	// each listing truncated.
	big := map[string]string{}
	for i := range 250 {
		for j := range 5 {
			big[fmt.Sprintf("f%03d/%d.yaml", i, j)] = "kind: ConfigMap\n"
		}
	}
	bigSHA := strings.Repeat("e", 40)
	fake.AddCommit(owner, name, bigSHA, big)
	_, err = h.Manifests(context.Background(), bot.PullRequest{Repo: owner + "/" + name, Number: 2, HeadSHA: bigSHA}, bigSHA, bot.WantEach(func(string) bool { return true }), nil)
	if err == nil || !strings.Contains(err.Error(), "too large to list") {
		t.Errorf("Manifests of a tree over the bound: %v, want an error that says it is too large to list", err)
	}
}

// TestChangedFilesBeyondGitHubsCap lists the files of a pull request that
// changes more files than GitHub's file listing gives: the ones past the
// cap are found from the trees at the merge base and the head, added,
// modified and removed, without patches, and the list holds each file
// once.
func TestChangedFilesBeyondGitHubsCap(t *testing.T) {
	const owner, name = "acme", "wide"
	keyPEM, pub := testKey(t)
	fake := fakegithub.New(testAppID, pub)
	defer fake.Close()
	base, head := map[string]string{"zz/gone.yaml": "kind: ConfigMap\n", "zz/same.yaml": "kind: Secret\n"}, map[string]string{"zz/same.yaml": "kind: Secret\n", "zz/new.yaml": "kind: ConfigMap\n"}
	for i := range 3020 {
		p := fmt.Sprintf("a/f%04d.yaml", i)
		base[p], head[p] = "v: 1\n", "v: 2\n"
	}
	baseSHA, headSHA := strings.Repeat("b", 40), strings.Repeat("1", 40)
	fake.AddCommit(owner, name, baseSHA, base)
	fake.AddCommit(owner, name, headSHA, head)
	fake.SetPR(owner, name, 1, baseSHA, headSHA)
	h := installationHost(t, keyPEM, fake)
	got, err := h.ChangedFiles(context.Background(), bot.PullRequest{Repo: owner + "/" + name, Number: 1, BaseSHA: baseSHA, HeadSHA: headSHA})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	patched := 0
	for _, f := range got {
		if _, twice := status[f.Path]; twice {
			t.Errorf("%s listed twice", f.Path)
		}
		status[f.Path] = f.Status
		if f.Patch != "" {
			patched++
		}
	}
	if len(got) != 3022 || patched != 3000 || status["a/f3019.yaml"] != "modified" || status["zz/new.yaml"] != "added" || status["zz/gone.yaml"] != "removed" {
		t.Errorf("%d files (%d with a patch), a/f3019 %q, zz/new %q, zz/gone %q; want 3,022 (3,000 as GitHub lists them), modified, added, removed",
			len(got), patched, status["a/f3019.yaml"], status["zz/new.yaml"], status["zz/gone.yaml"])
	}
	if _, ok := status["zz/same.yaml"]; ok {
		t.Error("zz/same.yaml, unchanged, is listed")
	}
}

// TestCommitFixesKeepsModesPastATruncatedTree commits fixes at a commit
// whose recursive tree listing GitHub truncates before the fixed files:
// an executable file past the cut keeps its mode (its folders listed one
// by one), a file the fix adds is a plain file, and the commit holds the
// rest of the tree as it was.
func TestCommitFixesKeepsModesPastATruncatedTree(t *testing.T) {
	const owner, name = "acme", "monorepo"
	keyPEM, pub := testKey(t)
	fake := fakegithub.New(testAppID, pub)
	defer fake.Close()
	fake.TreeLimit = 2
	sha := strings.Repeat("d", 40)
	files := map[string]string{"a.yaml": "kind: A\n", "b.yaml": "kind: B\n", "tools/deploy/run.yaml": "kind: Run\n", "tools/other.yaml": "kind: O\n"}
	fake.AddCommit(owner, name, sha, files)
	fake.SetTreeMode(owner, name, sha, "tools/deploy/run.yaml", "100755")
	fake.SetBranch(owner, name, "feature", sha)
	fake.SetPermissions(7, map[string]string{"contents": "write", "checks": "write", "pull_requests": "write", "metadata": "read"})
	h := installationHost(t, keyPEM, fake).(bot.Committer)
	pr := bot.PullRequest{Repo: owner + "/" + name, Number: 1, HeadSHA: sha, HeadRef: "feature"}
	got, err := h.CommitFixes(context.Background(), pr, bot.FixCommit{Branch: "feature", Parent: sha, Message: "fix", Files: []bot.File{
		{Path: "tools/deploy/run.yaml", Data: []byte("kind: Run\nfixed: true\n")},
		{Path: "tools/deploy/new.yaml", Data: []byte("kind: New\n")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"tools/deploy/run.yaml": "100755", "tools/deploy/new.yaml": "100644", "a.yaml": "100644"} {
		if m := fake.Mode(owner, name, got, path); m != want {
			t.Errorf("%s in the fix commit: mode %q, want %q", path, m, want)
		}
	}
	if _, tree, _ := fake.Commit(owner, name, got); tree["tools/other.yaml"] != files["tools/other.yaml"] || tree["tools/deploy/run.yaml"] != "kind: Run\nfixed: true\n" {
		t.Errorf("the fix commit holds %v, want the tree with the fixed file", tree)
	}
}
