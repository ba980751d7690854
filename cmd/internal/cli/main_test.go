package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/prodready/prodready/checks/checkstest"
)

const badProbe = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1
          readinessProbe: {tcpSocket: {port: http}}
`

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	p := Program{Name: "prodready", Version: "test"}
	code = p.Run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckExitCodes(t *testing.T) {
	dir := checkstest.WriteTree(t, map[string]string{"deploy/web.yaml": badProbe, "deploy/notes.txt": "not yaml"})
	if code, out, _ := runCLI(t, "", "check", dir); code != ExitFindings || !strings.Contains(out, "probe-named-port-undeclared") {
		t.Errorf("an error finding must exit 1 and be printed: %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "", "check", dir, "--fail-on", "none"); code != ExitOK {
		t.Errorf("--fail-on none must exit 0, got %d", code)
	}
	if code, _, errOut := runCLI(t, "", "check", filepath.Join(dir, "missing")); code != ExitUsage || errOut == "" {
		t.Errorf("a missing path must exit 2 with a message, got %d %q", code, errOut)
	}
	if code, _, _ := runCLI(t, "", "check", "--format", "xml", dir); code != ExitUsage {
		t.Errorf("an unknown format must exit 2, got %d", code)
	}
	clean := checkstest.WriteTree(t, map[string]string{"ok.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
	if code, _, _ := runCLI(t, "", "check", clean); code != ExitOK {
		t.Errorf("a clean tree must exit 0, got %d", code)
	}
}

// TestCheckProfiles writes both profiles, and samples heap allocations
// only when --memprofile asks for them. It checks the bundled fixtures: a
// run that allocates tens of megabytes is sure to be sampled (one sample
// per 512 KiB on average).
// TestCheckNothingChecked checks that input holding no Kubernetes object
// (an empty folder, only other YAML) is said and exits 2, unless
// --allow-empty, and that the other YAML is named as not checked.
func TestCheckNothingChecked(t *testing.T) {
	empty := t.TempDir()
	if code, _, errOut := runCLI(t, "", "check", empty); code != ExitUsage || !strings.Contains(errOut, "nothing was checked: no file to check was found") {
		t.Errorf("an empty folder: exit %d, stderr %q; want 2 and a message", code, errOut)
	}
	other := checkstest.WriteTree(t, map[string]string{"config/app.yaml": "log: {level: debug}\n"})
	code, out, errOut := runCLI(t, "", "check", "-o", "wide", other)
	if code != ExitUsage || !strings.Contains(errOut, "the 1 file read holds no Kubernetes object") {
		t.Errorf("only other YAML: exit %d, stderr %q; want 2 and a message", code, errOut)
	}
	if !strings.Contains(out, "config/app.yaml: not checked: holds no Kubernetes object") || !strings.Contains(out, "1 file (1 not checked), 0 objects") {
		t.Errorf("the other YAML is not named as not checked:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "", "check", "--allow-empty", other); code != ExitOK || errOut != "" {
		t.Errorf("--allow-empty: exit %d, stderr %q; want 0 and no message", code, errOut)
	}
	mixed := checkstest.WriteTree(t, map[string]string{"config/app.yaml": "log: {level: debug}\n", "deploy/web.yaml": badProbe})
	if code, _, _ := runCLI(t, "", "check", mixed, "--fail-on", "none"); code != ExitOK {
		t.Errorf("a Kubernetes object beside other YAML: exit %d, want 0", code)
	}
}

func TestCheckProfiles(t *testing.T) {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	dir := filepath.Join("..", "..", "..", "fixtures")
	out := t.TempDir()
	cpu, mem := filepath.Join(out, "cpu.prof"), filepath.Join(out, "mem.prof")

	runtime.MemProfileRate = defaultMemProfileRate
	if code, _, errOut := runCLI(t, "", "check", dir); code != ExitFindings {
		t.Fatalf("check without profiles: exit %d %s", code, errOut)
	}
	if runtime.MemProfileRate != 0 {
		t.Errorf("check without --memprofile left heap sampling on (rate %d)", runtime.MemProfileRate)
	}
	before := sampledAllocs()
	if code, _, errOut := runCLI(t, "", "check", "--cpuprofile", cpu, "--memprofile", mem, dir); code != ExitFindings {
		t.Fatalf("check with profiles: exit %d %s", code, errOut)
	}
	if got := sampledAllocs(); got == before {
		t.Error("check --memprofile sampled no allocations")
	}
	for _, f := range []string{cpu, mem} {
		if info, err := os.Stat(f); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// sampledAllocs counts the allocations the heap profile has sampled so far
// (as of a collection it forces).
func sampledAllocs() int64 {
	runtime.GC()
	n, _ := runtime.MemProfile(nil, true)
	recs := make([]runtime.MemProfileRecord, n+50)
	n, _ = runtime.MemProfile(recs, true)
	var total int64
	for _, r := range recs[:n] {
		total += r.AllocObjects
	}
	return total
}

// TestCheckFindsTheConfigOneWay: the config is the nearest .prodready.yaml
// from the current folder up to the repository root, whatever the paths
// checked look like; --config wins; its first line names it.
func TestCheckFindsTheConfigOneWay(t *testing.T) {
	dir := checkstest.WriteTree(t, map[string]string{
		".git/HEAD":          "ref: refs/heads/main\n",
		".prodready.yaml":    "rules:\n  probe-named-port-undeclared: {severity: warning}\n",
		"deploy/web.yaml":    badProbe,
		"deploy/sub/x.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"other/strict.yaml":  "rules:\n  probe-named-port-undeclared: {severity: error}\n",
		"cfg1.yaml":          "failOn: error\nrulez: {}\n",
		"nested/.git":        "gitdir: ../.git/worktrees/nested\n",
		"nested/web.yaml":    badProbe,
		"outside/README.txt": "",
	})
	t.Chdir(dir)
	for _, path := range []string{".", "deploy", "deploy/", "./deploy", "deploy/web.yaml", "./deploy/web.yaml", dir + "/deploy"} {
		code, out, errOut := runCLI(t, "", "check", "-o", "wide", path)
		if code != ExitOK || !strings.Contains(out, "warning probe-named-port-undeclared") {
			t.Errorf("check %s: the root config's severity must apply (warning does not fail): exit %d\n%s%s", path, code, out, errOut)
		}
		if first, _, _ := strings.Cut(out, "\n"); first != "config: .prodready.yaml" {
			t.Errorf("check %s: first line %q, want it to name the config", path, first)
		}
	}
	code, out, _ := runCLI(t, badProbe, "check", "-o", "wide", "-")
	if code != ExitOK || !strings.Contains(out, "warning probe-named-port-undeclared") {
		t.Errorf("check -: the config applies to the standard input too: exit %d\n%s", code, out)
	}
	// From a subfolder, the config above it; named as found from there.
	t.Chdir(filepath.Join(dir, "deploy", "sub"))
	code, out, _ = runCLI(t, "", "check", "-o", "wide", "..")
	if code != ExitOK || !strings.HasPrefix(out, "config: ../../.prodready.yaml\n") {
		t.Errorf("check .. from deploy/sub: exit %d\n%s", code, out)
	}
	// --config wins, and is named as given.
	t.Chdir(dir)
	code, out, _ = runCLI(t, "", "check", "-o", "wide", "--config", "other/strict.yaml", "deploy")
	if code != ExitFindings || !strings.HasPrefix(out, "config: other/strict.yaml\n") {
		t.Errorf("--config other/strict.yaml: exit %d\n%s", code, out)
	}
	// The lookup stops at the repository root (a .git file, as in a
	// worktree): nested/ is a repository of its own, without a config.
	t.Chdir(filepath.Join(dir, "nested"))
	code, out, _ = runCLI(t, "", "check", "-o", "wide", ".")
	if code != ExitFindings || !strings.HasPrefix(out, "config: built-in defaults (no .prodready.yaml") {
		t.Errorf("check in a nested repository: exit %d\n%s", code, out)
	}
	// Errors name the file that was read and speak YAML.
	t.Chdir(dir)
	_, _, errOut := runCLI(t, "", "check", "--config", "cfg1.yaml", "deploy")
	if want := "prodready: cfg1.yaml: line 2: unknown key \"rulez\" (did you mean \"rules\"?)\n"; errOut != want {
		t.Errorf("a bad --config: stderr %q, want %q", errOut, want)
	}
	bad := checkstest.WriteTree(t, map[string]string{".git/HEAD": "", "web.yaml": badProbe, ".prodready.yaml": "rulez: {}\n"})
	t.Chdir(bad)
	if code, _, errOut := runCLI(t, "", "check", "web.yaml"); code != ExitUsage || errOut != "prodready: .prodready.yaml: line 1: unknown key \"rulez\" (did you mean \"rules\"?)\n" {
		t.Errorf("an unknown config key must exit 2 naming the file, line and key: %d %q", code, errOut)
	}
}

// TestConfigGlobsMatchFromTheConfigsFolder: include and exclude match the
// path from the config's folder, so every spelling of a path checks the
// same files.
func TestConfigGlobsMatchFromTheConfigsFolder(t *testing.T) {
	dir := checkstest.WriteTree(t, map[string]string{
		".git/HEAD":               "",
		".prodready.yaml":         "exclude: [\"deploy/legacy/**\"]\n",
		"deploy/web.yaml":         badProbe,
		"deploy/legacy/old.yaml":  badProbe,
		"deploy/legacy/more.yaml": badProbe,
	})
	t.Chdir(dir)
	for _, path := range []string{".", "deploy", "./deploy/", filepath.Join(dir, "deploy")} {
		_, out, _ := runCLI(t, "", "check", "--format", "compact", path)
		if strings.Contains(out, "legacy/") || !strings.Contains(out, "deploy/web.yaml:") {
			t.Errorf("check %s: deploy/legacy/ must be excluded, deploy/web.yaml checked:\n%s", path, out)
		}
	}
	t.Chdir(filepath.Join(dir, "deploy"))
	if _, out, _ := runCLI(t, "", "check", "--format", "compact", "."); strings.Contains(out, "legacy/") || !strings.Contains(out, "web.yaml:") {
		t.Errorf("check . from deploy/: deploy/legacy/ must be excluded:\n%s", out)
	}
}

func TestCheckStdinJSON(t *testing.T) {
	code, out, _ := runCLI(t, badProbe, "check", "--format", "json", "-")
	if code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Findings []struct {
			Rule string `json:"rule"`
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(rep.Findings) == 0 || rep.Findings[0].File != "<stdin>" || rep.Findings[0].Line == 0 {
		t.Fatalf("findings: %+v", rep.Findings)
	}
}

func TestRulesCommand(t *testing.T) {
	code, out, _ := runCLI(t, "", "rules")
	if code != ExitOK || !strings.Contains(out, "probe-named-port-undeclared") {
		t.Fatalf("rules: %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "", "nonsense"); code != ExitUsage {
		t.Fatalf("unknown command must exit 2, got %d", code)
	}
}

func TestFixWritesDiffsAndDryRuns(t *testing.T) {
	const replicas = `# keep this comment
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1.0.0
          securityContext:
            privileged: true
`
	dir := checkstest.WriteTree(t, map[string]string{"web.yaml": replicas})
	path := filepath.Join(dir, "web.yaml")
	code, out, _ := runCLI(t, "", "fix", "--diff", "--rule", "privileged-container", dir)
	if code != ExitOK || !strings.Contains(out, "-            privileged: true") || !strings.Contains(out, "+            privileged: false") {
		t.Fatalf("--diff: %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(path); string(data) != replicas {
		t.Fatal("--diff must not write")
	}
	if code, out, _ := runCLI(t, "", "fix", "--dry-run", "--rule", "privileged-container", dir); code != ExitOK || !strings.Contains(out, "would fix privileged-container") {
		t.Fatalf("--dry-run: %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "", "fix", "--rule", "privileged-container", dir); code != ExitOK || !strings.Contains(errOut, "fixed 1 finding in 1 file") {
		t.Fatalf("fix: %d %s", code, errOut)
	}
	data, _ := os.ReadFile(path)
	if want := strings.Replace(replicas, "privileged: true", "privileged: false", 1); string(data) != want {
		t.Fatalf("only the chosen rule's fix, nothing else, comments kept:\n%s", data)
	}
	if code, _, _ := runCLI(t, "", "fix", "--rule", "no-such-rule", dir); code != ExitUsage {
		t.Fatal("an unknown --rule is a usage error")
	}
}

// TestProgramCommands: a program's extra commands run and are in its
// usage, except hidden ones, which run all the same.
func TestProgramCommands(t *testing.T) {
	code, _, stderr := runCLI(t, "", "serve")
	if code != ExitUsage || !strings.Contains(stderr, `unknown command "serve"`) {
		t.Errorf("serve without the extra command: exit %d, stderr %q", code, stderr)
	}
	var ran []string
	p := Program{Name: "prodready", Version: "v9", Extra: []Extra{func(IO) *cobra.Command {
		c := &cobra.Command{Use: "serve [flags]", Short: "run the server", RunE: func(_ *cobra.Command, args []string) error { ran = args; return Exit(7) }}
		c.Flags().Bool("x", false, "")
		return c
	}, func(IO) *cobra.Command {
		return &cobra.Command{Use: "worker", Hidden: true, RunE: func(*cobra.Command, []string) error { return Exit(9) }}
	}}}
	var out, errb bytes.Buffer
	if code := p.Run([]string{"serve", "--x", "arg"}, nil, &out, &errb); code != 7 || len(ran) != 1 || ran[0] != "arg" {
		t.Errorf("serve: exit %d, args %q", code, ran)
	}
	out.Reset()
	p.Run([]string{"help"}, nil, &out, &errb)
	for _, want := range []string{"  serve ", "run the server\n", "  check ", "  version "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "worker") {
		t.Errorf("usage shows the hidden command:\n%s", out.String())
	}
	if code := p.Run([]string{"worker"}, nil, &out, &errb); code != 9 {
		t.Errorf("hidden command: exit %d, want 9", code)
	}
	out.Reset()
	if code := p.Run([]string{"version"}, nil, &out, &errb); code != ExitOK || out.String() != "prodready v9\n" {
		t.Errorf("version: exit %d, %q", code, out.String())
	}
}

// TestFixAppliesExactFixesUnlessAll: prodready fix applies exact fixes
// (an apiVersion migration) and leaves starting points (resources, probes,
// security context: values that depend on the app), saying how many and
// how to apply them; --all applies those too.
func TestFixAppliesExactFixesUnlessAll(t *testing.T) {
	const pdb = `apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1.0.0
`
	dir := checkstest.WriteTree(t, map[string]string{"web.yaml": pdb})
	code, out, errOut := runCLI(t, "", "fix", "--diff", dir)
	if code != ExitOK || !strings.Contains(out, "-apiVersion: policy/v1beta1") || !strings.Contains(out, "+apiVersion: policy/v1") {
		t.Fatalf("the exact apiVersion fix is not applied: %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "+          resources:") || strings.Contains(out, "securityContext") {
		t.Errorf("a starting-point fix applied without --all:\n%s", out)
	}
	if !strings.Contains(errOut, "starting-point fixes not applied") || !strings.Contains(errOut, "--all") {
		t.Errorf("the summary does not say what was left and how to apply it:\n%s", errOut)
	}
	code, out, errOut = runCLI(t, "", "fix", "--all", "--diff", dir)
	if code != ExitOK || !strings.Contains(out, "+apiVersion: policy/v1") || !strings.Contains(out, "+          resources:") {
		t.Fatalf("--all does not apply the starting points: %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "starting-point fixes not applied") {
		t.Errorf("--all still leaves starting points:\n%s", errOut)
	}
}

// TestFixSummaryCounts: fix's last line agrees in number with its counts
// and leaves out the clauses whose count is 0.
func TestFixSummaryCounts(t *testing.T) {
	for _, tc := range []struct {
		wouldFix                         bool
		fixed, files, failed, no, byHand int
		want                             string
	}{
		{false, 1, 1, 0, 0, 0, "fixed 1 finding in 1 file"},
		{true, 3, 2, 1, 1, 0, "would fix 3 findings in 2 files; 1 fix could not be applied; 1 finding has no automatic fix (see `prodready check`)"},
		{false, 0, 0, 2, 5, 0, "nothing to fix; 2 fixes could not be applied; 5 findings have no automatic fix (see `prodready check`)"},
		{true, 0, 0, 0, 0, 0, "nothing to fix"},
		{false, 2, 1, 0, 0, 1, "fixed 2 findings in 1 file; 1 fix to make by hand (no values key or literal line of its chart or overlay takes it; `prodready fix --dry-run` lists it)"},
		{true, 0, 0, 0, 3, 4, "nothing to fix; 3 findings have no automatic fix (see `prodready check`); 4 fixes to make by hand (no values key or literal line of their chart or overlay takes them; `prodready fix --dry-run` lists them)"},
	} {
		if got := fixSummary(tc.wouldFix, tc.fixed, tc.files, tc.failed, tc.no, tc.byHand); got != tc.want {
			t.Errorf("fixSummary(%v, %d, %d, %d, %d, %d) = %q\nwant %q", tc.wouldFix, tc.fixed, tc.files, tc.failed, tc.no, tc.byHand, got, tc.want)
		}
	}
}

// TestCheckFlagsOverrideTheConfig: each flag changes the config for one
// run, over what the file says.
func TestCheckFlagsOverrideTheConfig(t *testing.T) {
	const cronJob = `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: job
              image: job:1
`
	dir := checkstest.WriteTree(t, map[string]string{
		".git/HEAD":             "",
		".prodready.yaml":       "kubernetesVersion: \"1.37\"\nexclude: [\"deploy/skip/**\"]\nrules:\n  probe-named-port-undeclared: false\n",
		"deploy/web.yaml":       badProbe,
		"deploy/skip/web.yaml":  badProbe,
		"deploy/jobs/cron.yaml": strings.Replace(cronJob, "batch/v1", "batch/v1beta1", 1),
	})
	t.Chdir(dir)
	rules := func(args ...string) (int, map[string]int) {
		t.Helper()
		code, out, errOut := runCLI(t, "", append([]string{"check", "--format", "json"}, args...)...)
		var rep struct {
			Findings []struct {
				Rule     string `json:"rule"`
				File     string `json:"file"`
				Severity string `json:"severity"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("check %v: not JSON (%v): %s%s", args, err, out, errOut)
		}
		got := map[string]int{}
		for _, f := range rep.Findings {
			got[f.Rule]++
			got["file "+f.File]++
			got["severity "+f.Severity]++
		}
		return code, got
	}
	_, base := rules(".")
	if base["probe-named-port-undeclared"] != 0 || base["file deploy/skip/web.yaml"] != 0 || base["api-removed"] != 1 {
		t.Fatalf("the config: %v", base)
	}
	if _, got := rules("--enable-rule", "probe-named-port-undeclared", "."); got["probe-named-port-undeclared"] != 1 {
		t.Errorf("--enable-rule over the config's false: %v", got)
	}
	if _, got := rules("--disable-rule", "api-removed,run-as-root", "."); got["api-removed"] != 0 || got["run-as-root"] != 0 || got["readonly-rootfs-missing"] == 0 {
		t.Errorf("--disable-rule a,b: %v", got)
	}
	if _, got := rules("--kubernetes-version", "1.20", "."); got["api-removed"] != 0 {
		t.Errorf("--kubernetes-version 1.20: batch/v1beta1 CronJob is still served there: %v", got)
	}
	if _, got := rules("--exclude", "deploy/jobs/**", "deploy"); got["file deploy/jobs/cron.yaml"] != 0 || got["file deploy/skip/web.yaml"] != 0 || got["file deploy/web.yaml"] == 0 {
		t.Errorf("--exclude adds to the config's exclude: %v", got)
	}
	if _, got := rules("--include", "deploy/jobs/*.yaml", "."); got["file deploy/web.yaml"] != 0 || got["file deploy/jobs/cron.yaml"] == 0 {
		t.Errorf("--include replaces the config's include: %v", got)
	}
	code, got := rules("--min-severity", "warning", "--fail-on", "info", ".")
	if got["severity info"] != 0 || got["severity warning"] == 0 || code != ExitFindings {
		t.Errorf("--min-severity warning: exit %d, %v", code, got)
	}
	if code, got := rules("--min-severity", "error", "--fail-on", "warning", "--disable-rule", "api-removed", "."); len(got) != 0 || code != ExitOK {
		t.Errorf("--min-severity error leaves the warnings out of the exit code too: exit %d, %v", code, got)
	}
	for _, bad := range [][]string{
		{"--kubernetes-version", "latest"},
		{"--min-severity", "none"},
		{"--enable-rule", "pdb-mising"},
		{"--enable-rule", "pdb-missing", "--disable-rule", "pdb-missing"},
		{"--disable-rule", "yaml-invalid"},
		{"--include", ""},
		{"--output", "report.json"},
		{"--format", "json", "--output", "sarif"},
	} {
		if code, _, errOut := runCLI(t, "", append(append([]string{"check"}, bad...), ".")...); code != ExitUsage || errOut == "" {
			t.Errorf("check %v: exit %d, stderr %q; want a usage error", bad, code, errOut)
		}
	}
	if _, _, errOut := runCLI(t, "", "check", "--disable-rule", "render-failed", "."); !strings.Contains(errOut, "--disable-rule: render-failed cannot be switched off") {
		t.Errorf("an always-on rule says it cannot be switched off: %s", errOut)
	}
	if _, _, errOut := runCLI(t, "", "check", "--enable-rule", "pdb-mising", "."); !strings.Contains(errOut, `did you mean "pdb-missing"?`) {
		t.Errorf("an unknown rule names the nearest: %s", errOut)
	}
}

// TestCheckOutputAndStdinName: --output is the format (--format its old
// name), and
// --stdin-filename is the path the standard input is reported under.
func TestCheckOutputAndStdinName(t *testing.T) {
	code, out, _ := runCLI(t, badProbe, "check", "--output", "compact", "--stdin-filename", "./deploy/web.yaml", "-")
	if code != ExitFindings || !strings.Contains(out, "deploy/web.yaml:12:40: error: ") || strings.Contains(out, "fix:") || strings.Contains(out, "<stdin>") {
		t.Errorf("--output compact --stdin-filename: exit %d\n%s", code, out)
	}
	_, out, _ = runCLI(t, badProbe, "check", "--format", "github", "--stdin-filename", "deploy/web.yaml", "-")
	if !strings.Contains(out, "::error file=deploy/web.yaml,line=12,") {
		t.Errorf("--format github on stdin names the file:\n%s", out)
	}
	_, out, _ = runCLI(t, badProbe, "fix", "--stdin-filename", "deploy/web.yaml", "-")
	if !strings.Contains(out, "kind: Deployment") {
		t.Errorf("fix - writes the fixed standard input:\n%s", out)
	}
}

// TestCheckGitHubStepSummary: with $GITHUB_STEP_SUMMARY set, --format
// github appends the Markdown summary of every finding to that file.
func TestCheckGitHubStepSummary(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(summary, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	if code, _, errOut := runCLI(t, badProbe, "check", "--format", "github", "-"); code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(data), "earlier step\n## prodready\n") || !strings.Contains(string(data), "| error | `probe-named-port-undeclared` | `<stdin>:12` |") {
		t.Errorf("step summary:\n%s", data)
	}
}

// TestCheckHelpDocumentsTheFlags: check -h shows every flag that changes
// the config and examples.
func TestCheckHelpDocumentsTheFlags(t *testing.T) {
	code, help, _ := runCLI(t, "", "check", "-h")
	if code != ExitOK {
		t.Fatalf("check -h: exit %d", code)
	}
	for _, want := range []string{"--kubernetes-version", "--min-severity", "--include", "--exclude", "--enable-rule", "--disable-rule", "-o, --output", "--output-file", "--stdin-filename", "compact", "junit", "wide", "Examples:\n  prodready check"} {
		if !strings.Contains(help, want) {
			t.Errorf("check -h lacks %q", want)
		}
	}
	if _, help, _ := runCLI(t, "", "fix", "-h"); !strings.Contains(help, "-min-severity") || !strings.Contains(help, "Examples:") {
		t.Errorf("fix -h lacks the overrides or examples:\n%s", help)
	}
}
