package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCLIEnv is runCLI with more environment variables (NAME=value).
func runCLIEnv(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), asMain+"=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running prodready %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// TestFlagsAsPeersSpellThem runs the command line as a process the way a
// user of kubectl, kube-score or conftest would: -o names the format,
// --output-file the file, a mistyped flag or command gets a suggestion,
// and a name that is no format is refused rather than written to.
func TestFlagsAsPeersSpellThem(t *testing.T) {
	demo, err := filepath.Abs("../../fixtures/demo")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	out, errOut, code := runCLI(t, dir, "check", "-o", "json", demo)
	var rep struct{ Findings []cliFinding }
	if code != 1 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Findings) == 0 {
		t.Errorf("check -o json: exit %d, want 1 and a JSON report with findings\n%s%s", code, out, errOut)
	}

	_, errOut, code = runCLI(t, dir, "check", "-o", "json.out", demo)
	if code != 2 || !strings.Contains(errOut, "--output-file json.out") {
		t.Errorf("check -o json.out: exit %d, want 2 and a pointer to --output-file\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "json.out")); err == nil {
		t.Error("check -o json.out wrote a file")
	}

	out, errOut, code = runCLI(t, dir, "check", "-o", "sarif", "--output-file", "r.sarif", demo)
	data, err := os.ReadFile(filepath.Join(dir, "r.sarif"))
	if code != 1 || err != nil || !bytes.Contains(data, []byte(`"$schema"`)) || out != "" || !strings.Contains(errOut, "wrote r.sarif (sarif): ") {
		t.Errorf("check -o sarif --output-file r.sarif: exit %d, file %v, stdout %q; want 1, the SARIF log, and a line on stderr\n%s", code, err, out, errOut)
	}

	// The spelling of the scripts written before -o named the format.
	out, errOut, code = runCLI(t, dir, "check", "--format", "junit", "-o", "old.xml", demo)
	data, err = os.ReadFile(filepath.Join(dir, "old.xml"))
	if code != 1 || err != nil || !bytes.Contains(data, []byte("<testsuites")) || !strings.Contains(errOut, "note: -o now names the format") {
		t.Errorf("check --format junit -o old.xml: exit %d, file %v; want 1, the JUnit file and a note\n%s%s", code, err, out, errOut)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--formt", "json", demo}, "unknown flag: --formt (did you mean -o/--output?)"},
		{[]string{"check", "--fail-onn", "warning", demo}, "(did you mean --fail-on?)"},
		{[]string{"check", "-fail-on", "warning", demo}, "unknown flag -fail-on (long flags take two dashes) (did you mean --fail-on?)"},
		{[]string{"check", "-o", "jsn", demo}, "-o jsn: unknown format (did you mean json?)"},
		{[]string{"chek", demo}, "Did you mean this?\n\tcheck"},
		{[]string{"rules", "replicas-too-fw"}, "replicas-too-fw"},
		{[]string{"serve", "--log-level", "loud"}, "debug, info, warn or error"},
	} {
		out, errOut, code := runCLI(t, dir, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("prodready %s: exit %d, stdout %q, stderr:\n%s\nwant exit 2, nothing on stdout and %q on stderr", strings.Join(c.args, " "), code, out, errOut, c.want)
		}
		if strings.Count(errOut, "\n") > 6 {
			t.Errorf("prodready %s: %d lines on stderr, want a short message, not the usage", strings.Join(c.args, " "), strings.Count(errOut, "\n"))
		}
	}
}

// TestHelpIsUniform: -h and --help of every command print its help on
// standard output and exit 0, version's included; `help CMD` is the same.
func TestHelpIsUniform(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"check", "fix", "review", "rules", "serve", "action", "version", "completion"} {
		for _, h := range []string{"-h", "--help"} {
			out, errOut, code := runCLI(t, dir, cmd, h)
			if code != 0 || !strings.Contains(out, "Usage:\n  prodready "+cmd) || errOut != "" {
				t.Errorf("prodready %s %s: exit %d, stderr %q, stdout:\n%s\nwant exit 0 and the usage on stdout", cmd, h, code, errOut, out)
			}
		}
	}
	out, _, code := runCLI(t, dir, "help", "check")
	if code != 0 || !strings.Contains(out, "--output-file") || !strings.Contains(out, "-o, --output") {
		t.Errorf("prodready help check: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "--format") {
		t.Errorf("check's help shows the hidden --format:\n%s", out)
	}
}

// TestRulesCommand: `rules ID` shows that rule alone with an example and
// its fix; -o json is the catalog; -o markdown is docs/rules.md.
func TestRulesCommand(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI(t, dir, "rules", "replicas-too-few")
	if code != 0 || !strings.HasPrefix(out, "replicas-too-few\n") || !strings.Contains(out, "Example (fixtures/rules/replicas-too-few/") ||
		!strings.Contains(out, "replicas: 1") || !strings.Contains(out, "fix: (starting point) set replicas:") || strings.Contains(out, "pdb-missing") {
		t.Errorf("rules replicas-too-few: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = runCLI(t, dir, "rules", "-o", "json")
	var all []struct{ ID, Severity string }
	if code != 0 || json.Unmarshal([]byte(out), &all) != nil || len(all) < 100 {
		t.Errorf("rules -o json: exit %d, %d rules\n%.300s", code, len(all), out)
	}
	out, _, _ = runCLI(t, dir, "rules", "-o", "json", "pdb-missing")
	var one []struct{ ID string }
	if json.Unmarshal([]byte(out), &one) != nil || len(one) != 1 || one[0].ID != "pdb-missing" {
		t.Errorf("rules -o json pdb-missing: %s", out)
	}
	want, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	out, _, code = runCLI(t, dir, "rules", "-o", "markdown")
	if code != 0 || out != string(want) {
		t.Errorf("rules -o markdown (exit %d) is not docs/rules.md", code)
	}
	// make docs' spelling.
	if _, errOut, code := runCLI(t, dir, "rules", "-o", "markdown", "--output-file", "rules.md"); code != 0 {
		t.Errorf("rules -o markdown --output-file rules.md: exit %d: %s", code, errOut)
	} else if got, _ := os.ReadFile(filepath.Join(dir, "rules.md")); string(got) != string(want) {
		t.Error("rules -o markdown --output-file wrote something else than docs/rules.md")
	}
}

// TestCompletion: completion scripts for the usual shells, and the
// completions they ask the binary for (formats, rule ids).
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	for shell, want := range map[string]string{"bash": "__start_prodready", "zsh": "#compdef prodready", "fish": "complete -c prodready", "powershell": "Register-ArgumentCompleter"} {
		out, errOut, code := runCLI(t, dir, "completion", shell)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d, no %q\n%.200s%s", shell, code, want, out, errOut)
		}
	}
	out, _, _ := runCLI(t, dir, "__complete", "check", "-o", "")
	if !strings.Contains(out, "json\n") || !strings.Contains(out, "sarif\n") {
		t.Errorf("check -o <TAB> offers:\n%s", out)
	}
	out, _, _ = runCLI(t, dir, "__complete", "rules", "replicas-")
	if !strings.Contains(out, "replicas-too-few\n") {
		t.Errorf("rules replicas-<TAB> offers:\n%s", out)
	}
}

// TestColour: the text report is coloured when FORCE_COLOR says so (the
// way to test a terminal without one), and never with NO_COLOR or
// --no-color; a pipe gets none by default.
func TestColour(t *testing.T) {
	demo, err := filepath.Abs("../../fixtures/demo")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const esc = "\033["
	out, _, _ := runCLIEnv(t, dir, []string{"NO_COLOR=", "FORCE_COLOR="}, "check", demo)
	if strings.Contains(out, esc) {
		t.Error("check into a pipe printed colour")
	}
	out, _, _ = runCLIEnv(t, dir, []string{"NO_COLOR=", "FORCE_COLOR=1"}, "check", demo)
	if !strings.Contains(out, esc+"1m"+esc+"31merror  "+esc+"0m") {
		t.Errorf("check with FORCE_COLOR=1 did not colour an error:\n%.600s", out)
	}
	for _, c := range [][]string{{"NO_COLOR=1", "FORCE_COLOR=1"}, {"NO_COLOR=", "FORCE_COLOR=1", "--no-color"}} {
		env, args := c[:2], []string{"check", demo}
		if len(c) == 3 {
			args = append(args, c[2])
		}
		if out, _, _ := runCLIEnv(t, dir, env, args...); strings.Contains(out, esc) {
			t.Errorf("check with %v printed colour", c)
		}
	}
}

// TestServeFlagsFromEnvironment: serve's flags read their environment
// variables, and a bad value is refused naming the variable, not
// silently replaced by the default.
func TestServeFlagsFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	for _, env := range []string{"PRODREADY_WORKERS=four", "PRODREADY_LOG_LEVEL=loud", "PRODREADY_QUEUE_ACK_WAIT=soon"} {
		_, errOut, code := runCLIEnv(t, dir, []string{env}, "serve")
		name, _, _ := strings.Cut(env, "=")
		if code != 2 || !strings.Contains(errOut, name) {
			t.Errorf("serve with %s: exit %d, want 2 and a message naming %s:\n%s", env, code, name, errOut)
		}
	}
}

// TestPreCommitFileLists runs the hooks of .pre-commit-hooks.yaml as
// pre-commit does: its entry with the changed files appended. A template
// and a values file of a chart are checked as part of the chart (rendered
// whole) and only their findings are shown; a YAML file with no object
// passes with --allow-empty.
func TestPreCommitFileLists(t *testing.T) {
	hooks, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range []string{"entry: prodready check --allow-empty", "entry: prodready fix", "id: prodready\n", "id: prodready-fix\n"} {
		if !strings.Contains(string(hooks), entry) {
			t.Fatalf(".pre-commit-hooks.yaml lacks %q", entry)
		}
	}
	dir := t.TempDir()
	copyTree(t, "../../fixtures/render/helm/web", filepath.Join(dir, "web"))
	if err := os.WriteFile(filepath.Join(dir, "notes.yaml"), []byte("owner: team\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	all, _ := checkJSON(t, dir, "web")
	out, errOut, code := runCLI(t, dir, "check", "--allow-empty", "-o", "json", "web/templates/deployment.yaml", "notes.yaml")
	var rep struct{ Findings []cliFinding }
	if code != 1 && code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("check of a template alone: exit %d\n%s%s", code, out, errOut)
	}
	// The chart's render-failed findings stay (what of it was not
	// rendered), wherever they are.
	want := map[string]bool{}
	for _, f := range all {
		if f.File == "web/templates/deployment.yaml" || f.Rule == "render-failed" {
			want[f.key()] = true
		}
	}
	got := map[string]bool{}
	for _, f := range rep.Findings {
		got[f.key()] = true
		if !want[f.key()] {
			t.Errorf("a finding of a file not named: %s", f.key())
		}
	}
	if len(want) < 2 || len(got) != len(want) {
		t.Errorf("check of the template alone: %d findings, want the %d the whole chart's run has in it", len(got), len(want))
	}
	if out, errOut, code := runCLI(t, dir, "check", "--allow-empty", "notes.yaml"); code != 0 {
		t.Errorf("check --allow-empty of a file with no object: exit %d\n%s%s", code, out, errOut)
	}
}
