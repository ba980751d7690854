package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testmanifest"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", "-b", "main")
	write("deploy/app.yaml", testmanifest.ProbeDeployment("8080", ""))
	run("add", ".")
	run("commit", "-q", "-m", "base")
	run("checkout", "-q", "-b", "feature")
	write("deploy/app.yaml", testmanifest.ProbeDeployment("metrics", "")+"          securityContext:\n            privileged: true\n")
	write(".prodready.yaml", "rules:\n  probe-named-port-undeclared: false\n")
	run("add", ".")
	run("commit", "-q", "-m", "change")
	return dir
}

func TestReviewCommand(t *testing.T) {
	dir := gitRepo(t)
	var out, errb bytes.Buffer
	cli := Program{Name: "prodready", Version: "test"}
	code := cli.Run([]string{"review", "--base", "main", "-C", dir}, nil, &out, &errb)
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d; stderr:\n%s\nstdout:\n%s", code, ExitFindings, errb.String(), out.String())
	}
	got := out.String()
	for _, want := range []string{
		"Review: 1 new error, ",
		"=== deploy/app.yaml line 17\n",
		"`probe-named-port-undeclared`",
		// the privileged line is added, and its fix is a one-click suggestion
		"`privileged-container`",
		"```suggestion\n            privileged: false\n", // merged with the other fixes that insert at the same place
		"<!-- prodready:fp=",
		"=== summary",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if code := cli.Run([]string{"review"}, nil, &out, &errb); code != ExitUsage {
		t.Errorf("without --base: exit %d, want %d", code, ExitUsage)
	}
	if code := cli.Run([]string{"review", "--base", "nope", "-C", dir}, nil, &out, &errb); code != ExitUsage {
		t.Errorf("unknown base: exit %d, want %d", code, ExitUsage)
	}
}

// TestReviewTakesChecksFlags: review takes check's -o, --fail-on and
// --config: the findings it reports as JSON, the exit code the severity
// asks for, and a config file of the working tree in place of the one at
// the base commit.
func TestReviewTakesChecksFlags(t *testing.T) {
	dir := gitRepo(t)
	cli := Program{Name: "prodready", Version: "test"}
	var out, errb bytes.Buffer
	if code := cli.Run([]string{"review", "--base", "main", "-C", dir, "-o", "json"}, nil, &out, &errb); code != ExitFindings {
		t.Fatalf("-o json: exit %d\n%s", code, errb.String())
	}
	var rep struct {
		Findings []struct {
			RuleID string `json:"rule"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Findings) == 0 {
		t.Fatalf("-o json is no report of findings: %v\n%s", err, out.String())
	}
	rules := map[string]bool{}
	for _, f := range rep.Findings {
		rules[f.RuleID] = true
	}
	if !rules["privileged-container"] {
		t.Errorf("-o json lacks the new privileged-container finding: %v", rules)
	}
	out.Reset()
	if code := cli.Run([]string{"review", "--base", "main", "-C", dir, "--fail-on", "none"}, nil, &out, &errb); code != ExitOK {
		t.Errorf("--fail-on none: exit %d, want 0", code)
	}
	// The base has no config; --config names one that switches the rule off.
	cfg := filepath.Join(t.TempDir(), "strict.yaml")
	os.WriteFile(cfg, []byte("rules:\n  privileged-container: false\n  probe-named-port-undeclared: false\n"), 0o644)
	out.Reset()
	cli.Run([]string{"review", "--base", "main", "-C", dir, "--config", cfg, "-o", "json"}, nil, &out, &errb)
	if strings.Contains(out.String(), `"privileged-container"`) {
		t.Errorf("--config switched privileged-container off, yet it is reported:\n%s", out.String())
	}
}

// TestReviewFormatsNameFilesNotChecked: in check's formats, review names
// the changed files it read but did not check, with why, as its text
// summary does.
func TestReviewFormatsNameFilesNotChecked(t *testing.T) {
	dir := gitRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "deploy", "notes.yaml"), []byte("owner: team\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "notes"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for _, format := range []string{"json", "compact", "sarif"} {
		var out, errb bytes.Buffer
		Program{Name: "prodready", Version: "test"}.Run([]string{"review", "--base", "main", "-C", dir, "-o", format}, nil, &out, &errb)
		if !strings.Contains(out.String(), "deploy/notes.yaml") || !strings.Contains(out.String(), "no Kubernetes object") {
			t.Errorf("review -o %s does not name deploy/notes.yaml as not checked:\n%s%s", format, out.String(), errb.String())
		}
	}
}
