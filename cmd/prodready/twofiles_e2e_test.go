package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/fakegitlab"
	"github.com/prodready/prodready/internal/testconfig"
	ghv "github.com/prodready/prodready/vcs/github"
)

// scratchChart is fixtures/render/helm-two-files as chart web: its
// container's securityContext only its values write (securityContext: {}
// leaves it out), and its template writes the container and the pod as
// they are, without a volume: a read-only root filesystem is set in
// values.yaml, and the volume for /tmp added in the template.
func scratchChart(t *testing.T) map[string]string {
	t.Helper()
	const dir = "../../fixtures/render/helm-two-files"
	files := map[string]string{}
	for _, p := range []string{"Chart.yaml", "values.yaml", "templates/deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		files["web/"+p] = string(data)
	}
	return files
}

// TestFixMakesAFixOfTwoFilesWhole runs `prodready fix --rule
// readonly-rootfs-missing` as a process on scratchChart: --dry-run says
// the fix is one of two files, and the fix sets the key in values.yaml
// and adds the volume in the template, after which `prodready check`
// finds no readonly-rootfs-missing.
func TestFixMakesAFixOfTwoFilesWhole(t *testing.T) {
	dir := writeRepo(t, scratchChart(t))
	out, errOut, _ := runCLI(t, dir, "fix", "--rule", "readonly-rootfs-missing", "--dry-run", "web")
	if want := "web/values.yaml:1 would fix readonly-rootfs-missing: set readOnlyRootFilesystem: true and mount an emptyDir volume at /tmp for scratch files (as securityContext.readOnlyRootFilesystem in values.yaml, and with lines of web/templates/deployment.yaml: one fix in two files"; !strings.Contains(out, want) {
		t.Fatalf("fix --dry-run:\n%s\n%s\nwant %q", out, errOut, want)
	}
	if out, errOut, code := runCLI(t, dir, "fix", "--rule", "readonly-rootfs-missing", "web"); code != 0 || !strings.Contains(out+errOut, "fixed 1 finding in 2 files") {
		t.Fatalf("fix exited %d:\n%s\n%s", code, out, errOut)
	}
	values, _ := os.ReadFile(filepath.Join(dir, "web/values.yaml"))
	tmpl, _ := os.ReadFile(filepath.Join(dir, "web/templates/deployment.yaml"))
	if !strings.HasPrefix(string(values), "securityContext:\n  readOnlyRootFilesystem: true\n") {
		t.Errorf("values.yaml after the fix:\n%s", values)
	}
	if !strings.Contains(string(tmpl), "mountPath: /tmp") || !strings.Contains(string(tmpl), "emptyDir: {}") {
		t.Errorf("the template after the fix:\n%s", tmpl)
	}
	fs, _ := checkJSON(t, dir, "web")
	for _, f := range fs {
		if f.Rule == "readonly-rootfs-missing" || f.Rule == "render-failed" {
			t.Errorf("the fixed chart: %s at %s:%d: %s", f.Rule, f.File, f.Line, f.Message)
		}
	}
}

// TestServeCommitsAFixOfTwoFilesWhole runs `prodready serve` as a process
// against the fake GitHub on a pull request that adds scratchChart: the
// review's comment on web/values.yaml says the fix is one of two files
// and suggests no half of it; pressing Apply all fixes commits both
// files' parts in one commit.
func TestServeCommitsAFixOfTwoFilesWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	const secret = "twofiles-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	config := testconfig.OnlyRule("readonly-rootfs-missing")
	fake.AddCommit("acme", "web", replicaBase, map[string]string{"README.md": "hi\n", ".prodready.yaml": config})
	fake.SetBranch("acme", "web", "main", replicaBase)
	fake.SetBranch("acme", "web", "feature", replicaBase)
	head := headSHA(0)
	files := scratchChart(t)
	files["README.md"], files[".prodready.yaml"] = "hi\n", config
	fake.Push("acme", "web", "feature", head, files)
	fake.SetPR("acme", "web", 1, replicaBase, head)
	fake.SetPRBranches("acme", "web", 1, fakegithub.PRBranches{BaseRef: "main", HeadRef: "feature", HeadRepo: "acme/web"})
	fake.SetPermissions(1, map[string]string{"contents": "write", "checks": "write", "pull_requests": "write", "metadata": "read"})
	fake.SetCollaborator("acme", "web", "alice", "write")
	r := startReplica(t, "twofiles", []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(t.TempDir(), "nats"), "--queue-backoff", "100ms"})
	if code := r.deliver(t, secret, "review-1", prBody(1, "opened", head)); code != http.StatusAccepted {
		t.Fatalf("pull_request delivery: %d", code)
	}
	waitFor(t, "the review's check run completed", func() bool {
		runs := fake.CheckRuns("acme", "web")
		return len(runs) == 1 && runs[0].Status == "completed"
	})
	var comments []fakegithub.Comment
	for _, rv := range fake.Reviews("acme", "web") {
		comments = append(comments, rv.Comments...)
	}
	if len(comments) != 1 || comments[0].Path != "web/values.yaml" || comments[0].Line != 1 ||
		!strings.Contains(comments[0].Body, "one fix in two files") || strings.Contains(comments[0].Body, "```suggestion") {
		t.Fatalf("want one readonly-rootfs-missing comment on web/values.yaml line 1 that says it is one fix in two files, with no suggestion; got %+v", comments)
	}
	run := fake.CheckRuns("acme", "web")[0]
	if code := r.deliverEvent(t, secret, "check_run", "press-1", pressPayload(run.ID, run.Name, run.HeadSHA, ghv.ActionApplyAllFixes, "alice")); code != http.StatusAccepted {
		t.Fatalf("check_run delivery: %d", code)
	}
	waitFor(t, "the fix committed to the head branch", func() bool { return fake.Branch("acme", "web", "feature") != head })
	_, got, ok := fake.Commit("acme", "web", fake.Branch("acme", "web", "feature"))
	if !ok || !strings.HasPrefix(got["web/values.yaml"], "securityContext:\n  readOnlyRootFilesystem: true\n") || !strings.Contains(got["web/templates/deployment.yaml"], "mountPath: /tmp") {
		t.Errorf("the fix commit's values.yaml:\n%s\ntemplate:\n%s", got["web/values.yaml"], got["web/templates/deployment.yaml"])
	}
	if n := fake.Count(fakegithub.RouteCreateCommit); n != 1 {
		t.Errorf("%d commits created, want 1", n)
	}
}

// TestServeGitLabCommitsAFixOfTwoFilesWhole runs `prodready serve` as a
// process against the fake GitLab on a merge request that adds
// scratchChart: the review's diff thread on web/values.yaml says the fix
// is one of two files and holds no suggestion block; a Developer's
// `/prodready fix all` commits both files' parts in one commit.
func TestServeGitLabCommitsAFixOfTwoFilesWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	const (
		token, secret = "glpat-twofiles", "gitlab-twofiles-secret"
		project       = 7
		developer     = 501
	)
	config := testconfig.OnlyRule("readonly-rootfs-missing")
	files := scratchChart(t)
	files["README.md"], files[".prodready.yaml"] = "hi\n", config
	gl, head := gitLabMergeRequest(t, token, project, developer, map[string]string{"README.md": "hi\n", ".prodready.yaml": config}, files)
	r := startGitLabServe(t, "gitlab-twofiles", gl, token, secret, "--queue-backoff", "100ms")
	if code := r.deliverGitLab(t, secret, "Merge Request Hook", "mr-open", mergeRequestOpened(project, developer, head)); code != http.StatusAccepted {
		t.Fatalf("Merge Request Hook: %d", code)
	}
	waitForGitLabReview(t, gl, head)
	var threads []string
	for _, n := range botDiffThreads(gl, project) {
		threads = append(threads, n.Position.NewPath+"\n"+n.Body)
	}
	if len(threads) != 1 || !strings.HasPrefix(threads[0], "web/values.yaml\n") || !strings.Contains(threads[0], "one fix in two files") || strings.Contains(threads[0], "```suggestion") {
		t.Fatalf("want one diff thread on web/values.yaml that says it is one fix in two files, with no suggestion; got %q", threads)
	}

	gl.AddNote(project, 1, fakegitlab.User{ID: developer, Username: "dev"}, "/prodready fix all", true)
	ds := gl.Discussions(project, 1)
	cmd := ds[len(ds)-1]
	if code := r.deliverGitLab(t, secret, "Note Hook", "note-1", commandNote(project, developer, head, cmd.Notes[0].ID, cmd.ID, "/prodready fix all")); code != http.StatusAccepted {
		t.Fatalf("Note Hook: %d", code)
	}
	waitFor(t, "the fix request done", func() bool { _, ok := r.fixDone("gitlab:note-1"); return ok })
	if outcome, _ := r.fixDone("gitlab:note-1"); outcome != "committed" {
		t.Fatalf("the fix request ended %q, want committed\n%s", outcome, lastLines(r.logs(), 20))
	}
	got := gl.Files(project, gl.Branch(project, "feature"))
	if !strings.HasPrefix(got["web/values.yaml"], "securityContext:\n  readOnlyRootFilesystem: true\n") || !strings.Contains(got["web/templates/deployment.yaml"], "mountPath: /tmp") {
		t.Errorf("the fix commit's values.yaml:\n%s\ntemplate:\n%s", got["web/values.yaml"], got["web/templates/deployment.yaml"])
	}
	if n := len(gl.CallsTo(http.MethodPost, "/repository/commits")); n != 1 {
		t.Errorf("%d commits posted, want 1", n)
	}
}
