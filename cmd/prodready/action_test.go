package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/cmd/internal/cli"
	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
	"github.com/prodready/prodready/internal/testmanifest"
)

const actionToken = "ghs_workflow_token"

// actionRepo is a git repository with a base commit (main) and a pull
// request head (feature) that makes the web deployment privileged.
type actionRepo struct {
	dir        string
	base, head string
	// baseFiles and headFiles are the commits' files, for the fake.
	baseFiles, headFiles map[string]string
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newActionRepo(t *testing.T) *actionRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &actionRepo{dir: t.TempDir()}
	commit := func(files map[string]string, msg string) string {
		for name, content := range files {
			p := filepath.Join(r.dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gitIn(t, r.dir, "add", ".")
		gitIn(t, r.dir, "commit", "-q", "-m", msg)
		return gitIn(t, r.dir, "rev-parse", "HEAD")
	}
	gitIn(t, r.dir, "init", "-q", "-b", "main")
	r.baseFiles = map[string]string{
		".prodready.yaml": testconfig.OnlyRule("privileged-container") + "  privileged-container: {severity: error}\n",
		"deploy/app.yaml": testmanifest.ProbeDeployment("8080", ""),
		"other/x.yaml":    testmanifest.ProbeDeployment("8080", ""),
	}
	r.base = commit(r.baseFiles, "base")
	gitIn(t, r.dir, "checkout", "-q", "-b", "feature")
	r.headFiles = map[string]string{
		// The pull request switches the rule off in its own config: the
		// config at base still applies.
		".prodready.yaml": "rules:\n  privileged-container: false\n",
		"deploy/app.yaml": testmanifest.ProbeDeployment("8080", "") + "          securityContext:\n            privileged: true\n",
		"other/x.yaml":    r.baseFiles["other/x.yaml"],
	}
	r.head = commit(r.headFiles, "make web privileged")
	return r
}

// actionEnv is the Actions runner's environment for one run.
type actionEnv struct {
	summary, output string
}

// setActionEnv writes event (with the repository's SHAs) and points the
// GITHUB_* variables at it, the fake and the repository.
func setActionEnv(t *testing.T, fake *fakegithub.Server, dir string, event []byte) actionEnv {
	t.Helper()
	tmp := t.TempDir()
	ev := filepath.Join(tmp, "event.json")
	if err := os.WriteFile(ev, event, 0o644); err != nil {
		t.Fatal(err)
	}
	e := actionEnv{summary: filepath.Join(tmp, "summary.md"), output: filepath.Join(tmp, "output")}
	t.Setenv("GITHUB_EVENT_NAME", "pull_request")
	t.Setenv("GITHUB_EVENT_PATH", ev)
	t.Setenv("GITHUB_API_URL", strings.TrimSuffix(fake.URL, "/"))
	t.Setenv("GITHUB_TOKEN", actionToken)
	t.Setenv("GITHUB_WORKSPACE", dir)
	t.Setenv("GITHUB_STEP_SUMMARY", e.summary)
	t.Setenv("GITHUB_OUTPUT", e.output)
	return e
}

// syntheticEvent is fixtures/github/action_pull_request.json for r
// (acme/deploys#7), with fork making the head another repository's.
func syntheticEvent(t *testing.T, r *actionRepo, fork bool) []byte {
	t.Helper()
	data, err := os.ReadFile("../../fixtures/github/action_pull_request.json")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer("BASE_SHA", r.base, "HEAD_SHA", r.head).Replace(string(data))
	if fork {
		s = strings.Replace(s, `"full_name": "acme/deploys", "owner": {"login": "acme", "type": "Organization"}}
    },
    "base"`, `"full_name": "someone/deploys", "owner": {"login": "someone", "type": "User"}}
    },
    "base"`, 1)
		if !strings.Contains(s, "someone/deploys") {
			t.Fatal("fork: the fixture's head repository was not found")
		}
	}
	return []byte(s)
}

func newActionFake(t *testing.T, r *actionRepo, owner, name string, number int) *fakegithub.Server {
	t.Helper()
	fake := fakegithub.New(1, nil)
	t.Cleanup(fake.Close)
	fake.AddToken(actionToken)
	fake.AddCommit(owner, name, r.base, r.baseFiles)
	fake.AddCommit(owner, name, r.head, r.headFiles)
	fake.SetPR(owner, name, number, r.base, r.head)
	return fake
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return string(data)
}

// writes are the calls that changed something on the fake.
func writes(fake *fakegithub.Server) []string {
	var out []string
	for _, c := range fake.Calls() {
		if c.Method != http.MethodGet {
			out = append(out, c.String())
		}
	}
	return out
}

func TestActionReviewPostsOneReviewAndCheckRun(t *testing.T) {
	r := newActionRepo(t)
	fake := newActionFake(t, r, "acme", "deploys", 7)
	env := setActionEnv(t, fake, r.dir, syntheticEvent(t, r, false))
	var out, errb bytes.Buffer
	code := run([]string{"action"}, nil, &out, &errb)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d, want %d (an error finding, fail-on error)\nstdout:\n%s\nstderr:\n%s", code, cli.ExitFindings, out.String(), errb.String())
	}
	reviews := fake.Reviews("acme", "deploys")
	if len(reviews) != 1 {
		t.Fatalf("%d reviews, want 1; calls: %v", len(reviews), fake.Calls())
	}
	var bodies []string
	for _, c := range reviews[0].Comments {
		if c.Path != "deploy/app.yaml" {
			t.Errorf("comment on %s, want only deploy/app.yaml", c.Path)
		}
		bodies = append(bodies, c.Body)
	}
	all := strings.Join(bodies, "\n")
	for _, want := range []string{"`privileged-container`", "```suggestion\n", "privileged: false"} {
		if !strings.Contains(all, want) {
			t.Errorf("review comments lack %q:\n%s", want, all)
		}
	}
	runs := fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" || runs[0].HeadSHA != r.head || runs[0].Name != "prodready" {
		t.Fatalf("check runs = %+v, want one completed failure on the head", runs)
	}
	if strings.Contains(out.String(), "::error file=") {
		t.Errorf("review mode printed annotations:\n%s", out.String())
	}
	summary := readFile(t, env.summary)
	if !strings.Contains(summary, "## prodready") || !strings.Contains(summary, "privileged-container") {
		t.Errorf("job summary:\n%s", summary)
	}

	// A second run on the same push posts no second review.
	out.Reset()
	if code := run([]string{"action"}, nil, &out, &errb); code != cli.ExitFindings {
		t.Fatalf("second run: exit %d\n%s", code, errb.String())
	}
	if n := len(fake.Reviews("acme", "deploys")); n != 1 {
		t.Errorf("second run: %d reviews, want still 1", n)
	}
}

func TestActionFailOnDecidesExitCode(t *testing.T) {
	r := newActionRepo(t)
	for _, tc := range []struct {
		failOn string
		code   int
		concl  string
	}{
		{"none", cli.ExitOK, "success"},
		{"error", cli.ExitFindings, "failure"},
		{"info", cli.ExitFindings, "failure"},
	} {
		t.Run(tc.failOn, func(t *testing.T) {
			fake := newActionFake(t, r, "acme", "deploys", 7)
			setActionEnv(t, fake, r.dir, syntheticEvent(t, r, false))
			var out, errb bytes.Buffer
			if code := run([]string{"action", "--fail-on", tc.failOn}, nil, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out.String(), errb.String())
			}
			if runs := fake.CheckRuns("acme", "deploys"); len(runs) != 1 || runs[0].Conclusion != tc.concl {
				t.Errorf("check runs = %+v, want conclusion %s", runs, tc.concl)
			}
		})
	}
	var errb bytes.Buffer
	if code := run([]string{"action", "--fail-on", "sometimes"}, nil, &bytes.Buffer{}, &errb); code != cli.ExitUsage {
		t.Errorf("bad --fail-on: exit %d, want %d", code, cli.ExitUsage)
	}
	if code := run([]string{"action", "--mode", "loud"}, nil, &bytes.Buffer{}, &errb); code != cli.ExitUsage {
		t.Errorf("bad --mode: exit %d, want %d", code, cli.ExitUsage)
	}
}

// checkFallback asserts the annotation fallback: no review, the finding as
// an annotation on stdout, the reason in the log and the job summary.
func checkFallback(t *testing.T, fake *fakegithub.Server, env actionEnv, out string, code int, reason string) {
	t.Helper()
	if code != cli.ExitFindings {
		t.Errorf("exit %d, want %d (fail-on still applies)", code, cli.ExitFindings)
	}
	if n := len(fake.Reviews("acme", "deploys")); n != 0 {
		t.Errorf("%d reviews posted, want none", n)
	}
	if !strings.Contains(out, "::error file=deploy/app.yaml,line=") || !strings.Contains(out, "title=prodready privileged-container::") {
		t.Errorf("stdout lacks the finding's annotation:\n%s", out)
	}
	if !strings.Contains(out, "::warning title=prodready::prodready could not post a review") || !strings.Contains(out, reason) {
		t.Errorf("stdout does not say why there is no review (%q):\n%s", reason, out)
	}
	summary := readFile(t, env.summary)
	if !strings.Contains(summary, "## prodready") || !strings.Contains(summary, reason) {
		t.Errorf("job summary lacks the review or %q:\n%s", reason, summary)
	}
}

func TestActionForkFallsBackToAnnotations(t *testing.T) {
	r := newActionRepo(t)
	fake := newActionFake(t, r, "acme", "deploys", 7)
	env := setActionEnv(t, fake, r.dir, syntheticEvent(t, r, true))
	var out, errb bytes.Buffer
	code := run([]string{"action"}, nil, &out, &errb)
	checkFallback(t, fake, env, out.String(), code, "comes from a fork")
	if w := writes(fake); len(w) != 0 {
		t.Errorf("a fork run wrote to GitHub: %v", w)
	}
}

func TestActionForbiddenFallsBackToAnnotations(t *testing.T) {
	r := newActionRepo(t)
	t.Run("check run refused", func(t *testing.T) {
		fake := newActionFake(t, r, "acme", "deploys", 7)
		fake.Inject(fakegithub.Fault{Method: http.MethodPost, PathPrefix: "/repos/acme/deploys/check-runs", Status: http.StatusForbidden, Times: 1})
		env := setActionEnv(t, fake, r.dir, syntheticEvent(t, r, false))
		var out, errb bytes.Buffer
		code := run([]string{"action"}, nil, &out, &errb)
		checkFallback(t, fake, env, out.String(), code, "may not write")
		if w := writes(fake); len(w) != 1 {
			t.Errorf("writes after the refusal: %v, want only the refused one", w)
		}
	})
	t.Run("review refused", func(t *testing.T) {
		fake := newActionFake(t, r, "acme", "deploys", 7)
		fake.Inject(fakegithub.Fault{Method: http.MethodPost, PathPrefix: "/repos/acme/deploys/pulls/7/reviews", Status: http.StatusForbidden, Times: 1})
		env := setActionEnv(t, fake, r.dir, syntheticEvent(t, r, false))
		var out, errb bytes.Buffer
		code := run([]string{"action"}, nil, &out, &errb)
		checkFallback(t, fake, env, out.String(), code, "may not write")
		runs := fake.CheckRuns("acme", "deploys")
		if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" {
			t.Errorf("check run not completed after the refused review: %+v", runs)
		}
	})
}

func TestActionAnnotationsMode(t *testing.T) {
	r := newActionRepo(t)
	fake := newActionFake(t, r, "acme", "deploys", 7)
	env := setActionEnv(t, fake, r.dir, syntheticEvent(t, r, false))
	var out, errb bytes.Buffer
	code := run([]string{"action", "--mode", "annotations"}, nil, &out, &errb)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if w := writes(fake); len(w) != 0 {
		t.Errorf("annotations mode wrote to GitHub: %v", w)
	}
	if !strings.Contains(out.String(), "::error file=deploy/app.yaml,line=") || strings.Contains(out.String(), "could not post") {
		t.Errorf("stdout:\n%s", out.String())
	}
	if !strings.Contains(readFile(t, env.summary), "privileged-container") {
		t.Error("job summary lacks the finding")
	}
}

func TestActionSARIFMode(t *testing.T) {
	r := newActionRepo(t)
	fake := newActionFake(t, r, "acme", "deploys", 7)
	env := setActionEnv(t, fake, r.dir, syntheticEvent(t, r, false))
	sarif := filepath.Join(t.TempDir(), "out", "prodready.sarif")
	var out, errb bytes.Buffer
	code := run([]string{"action", "--mode", "sarif", "--sarif-file", sarif, "--paths", "deploy"}, nil, &out, &errb)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(readFile(t, sarif)), &log); err != nil {
		t.Fatalf("SARIF file is not JSON: %v", err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) != 1 {
		t.Fatalf("SARIF = %+v, want 2.1.0 with one result", log)
	}
	res := log.Runs[0].Results[0]
	if res.RuleID != "privileged-container" || len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI != "deploy/app.yaml" {
		t.Errorf("result = %+v, want privileged-container in deploy/app.yaml (repository-relative)", res)
	}
	if got := readFile(t, env.output); got != "sarif-file="+sarif+"\n" {
		t.Errorf("GITHUB_OUTPUT = %q", got)
	}
	if w := writes(fake); len(w) != 0 {
		t.Errorf("sarif mode wrote to GitHub: %v", w)
	}
}

// A shallow checkout (actions/checkout's default fetch-depth: 1) lacks the
// base: the Action fetches it.
func TestActionShallowCheckoutFetchesBase(t *testing.T) {
	r := newActionRepo(t)
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, r.dir, "clone", "-q", "--depth=1", "--branch", "feature", "file://"+r.dir, clone)
	fake := newActionFake(t, r, "acme", "deploys", 7)
	setActionEnv(t, fake, clone, syntheticEvent(t, r, false))
	var out, errb bytes.Buffer
	code := run([]string{"action"}, nil, &out, &errb)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "fetch-depth: 0") {
		t.Errorf("log does not say the history was fetched:\n%s", out.String())
	}
	for _, c := range fake.Calls() {
		if strings.HasSuffix(c.Path, "/files") || strings.Contains(c.Path, "/contents/") {
			t.Errorf("read %s through the API although git could fetch", c.Path)
		}
	}
	if rv := fake.Reviews("acme", "deploys"); len(rv) != 1 || len(rv[0].Comments) == 0 {
		t.Errorf("reviews = %+v, want one with comments", rv)
	}
}

// Without a git checkout the diff and the config come from the API.
func TestActionWithoutGitUsesAPI(t *testing.T) {
	r := newActionRepo(t)
	plain := t.TempDir()
	for name, content := range r.headFiles {
		p := filepath.Join(plain, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fake := newActionFake(t, r, "acme", "deploys", 7)
	setActionEnv(t, fake, plain, syntheticEvent(t, r, false))
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(plain))
	var out, errb bytes.Buffer
	code := run([]string{"action"}, nil, &out, &errb)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d (the base config keeps privileged-container on)\n%s%s", code, out.String(), errb.String())
	}
	var files, contents bool
	for _, c := range fake.Calls() {
		files = files || strings.HasSuffix(c.Path, "/pulls/7/files")
		contents = contents || strings.HasSuffix(c.Path, "/contents/.prodready.yaml")
	}
	if !files || !contents {
		t.Errorf("files API used: %v, contents API used: %v; calls %v", files, contents, fake.Calls())
	}
	if rv := fake.Reviews("acme", "deploys"); len(rv) != 1 {
		t.Errorf("%d reviews, want 1", len(rv))
	}
}

// The real pull_request payload GitHub sends (shared corpus), pointed at
// the test repository's commits.
func TestActionRealPayload(t *testing.T) {
	data, err := os.ReadFile("../../../shared/payloads/github/pull_request_opened.payload.json")
	if err != nil {
		t.Skipf("shared payloads absent (../shared): %v", err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	r := newActionRepo(t)
	pr := ev["pull_request"].(map[string]any)
	pr["base"].(map[string]any)["sha"] = r.base
	pr["head"].(map[string]any)["sha"] = r.head
	repo := pr["base"].(map[string]any)["repo"].(map[string]any)
	owner, name := repo["owner"].(map[string]any)["login"].(string), repo["name"].(string)
	number := int(pr["number"].(float64))
	event, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	fake := newActionFake(t, r, owner, name, number)
	env := setActionEnv(t, fake, r.dir, event)
	var out, errb bytes.Buffer
	if code := run([]string{"action"}, nil, &out, &errb); code != cli.ExitFindings {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if n := len(fake.Reviews(owner, name)); n != 1 {
		t.Errorf("%d reviews on %s/%s#%d, want 1", n, owner, name, number)
	}
	if n := len(fake.CheckRuns(owner, name)); n != 1 {
		t.Errorf("%d check runs, want 1", n)
	}
	if _, err := os.Stat(env.summary); err != nil {
		t.Errorf("no job summary: %v", err)
	}
}

// A push has no pull request: the checkout is checked as a whole.
func TestActionPushChecksTree(t *testing.T) {
	r := newActionRepo(t)
	fake := newActionFake(t, r, "acme", "deploys", 7)
	env := setActionEnv(t, fake, r.dir, []byte(`{"ref":"refs/heads/main","after":"`+r.head+`"}`))
	t.Setenv("GITHUB_EVENT_NAME", "push")
	var out, errb bytes.Buffer
	// The working tree's config (the head's) switches the only rule off.
	if code := run([]string{"action"}, nil, &out, &errb); code != cli.ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "has no pull request") || strings.Contains(out.String(), "::error file=") {
		t.Errorf("stdout:\n%s", out.String())
	}
	if w := writes(fake); len(w) != 0 {
		t.Errorf("push run wrote to GitHub: %v", w)
	}
	if !strings.Contains(readFile(t, env.summary), "## prodready") {
		t.Error("no job summary")
	}
}

// actions/checkout checks out the pull request's merge commit. When the
// base moved on and changed the same file, the merge's lines differ from
// the head's: comments must still land on the head's lines.
func TestActionMergeCommitCheckout(t *testing.T) {
	r := newActionRepo(t)
	gitIn(t, r.dir, "checkout", "-q", "main")
	app := filepath.Join(r.dir, "deploy", "app.yaml")
	if err := os.WriteFile(app, []byte("# owned by the web team\n# see the runbook\n"+r.baseFiles["deploy/app.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, r.dir, "commit", "-q", "-am", "base moves on")
	tip := gitIn(t, r.dir, "rev-parse", "HEAD")
	gitIn(t, r.dir, "checkout", "-q", "--detach", r.head)
	gitIn(t, r.dir, "merge", "-q", "--no-edit", "main")
	merged := readFile(t, app)
	if !strings.HasPrefix(merged, "# owned by") || !strings.Contains(merged, "privileged: true") {
		t.Fatalf("the merge did not combine both changes:\n%s", merged)
	}
	fake := newActionFake(t, r, "acme", "deploys", 7) // GitHub diffs against the merge base
	ev := strings.Replace(string(syntheticEvent(t, r, false)), r.base, tip, 1)
	setActionEnv(t, fake, r.dir, []byte(ev))
	var out, errb bytes.Buffer
	if code := run([]string{"action"}, nil, &out, &errb); code != cli.ExitFindings {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	want := 1
	for i, l := range strings.Split(r.headFiles["deploy/app.yaml"], "\n") {
		if strings.Contains(l, "privileged: true") {
			want = i + 1
		}
	}
	rv := fake.Reviews("acme", "deploys")
	if len(rv) != 1 || len(rv[0].Comments) != 1 || rv[0].Comments[0].Line != want {
		t.Fatalf("reviews = %+v, want one comment on the head's line %d", rv, want)
	}
	if !strings.Contains(out.String(), "not the pull request's head") {
		t.Errorf("log:\n%s", out.String())
	}
}
