package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
)

// chartRepo is a git repository whose pull request adds a Helm chart (a
// copy of fixtures/render/helm/web under charts/web) to a base with one
// manifest.
func chartRepo(t *testing.T) *actionRepo {
	t.Helper()
	return addingRepo(t, "../../fixtures/render/helm/web", "charts/web")
}

// addingRepo is a git repository whose pull request adds a copy of the
// folder src under dst to a base with a README.
func addingRepo(t *testing.T, src, dst string) *actionRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &actionRepo{dir: t.TempDir(), baseFiles: map[string]string{"README.md": "deploys\n"}, headFiles: map[string]string{"README.md": "deploys\n"}}
	write := func(name, content string) {
		p := filepath.Join(r.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, r.dir, "init", "-q", "-b", "main")
	write("README.md", "deploys\n")
	gitIn(t, r.dir, "add", ".")
	gitIn(t, r.dir, "commit", "-q", "-m", "base")
	r.base = gitIn(t, r.dir, "rev-parse", "HEAD")
	gitIn(t, r.dir, "checkout", "-q", "-b", "feature")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		name := filepath.ToSlash(filepath.Join(dst, rel))
		write(name, string(data))
		r.headFiles[name] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, r.dir, "add", ".")
	gitIn(t, r.dir, "commit", "-q", "-m", "add "+dst)
	r.head = gitIn(t, r.dir, "rev-parse", "HEAD")
	return r
}

// runActionProcess runs `prodready action args…` as its own process (the
// test binary as prodready), in the Actions environment env points at.
func runActionProcess(t *testing.T, fake *fakegithub.Server, r *actionRepo, args ...string) (actionEnv, string, int) {
	t.Helper()
	env := setActionEnv(t, fake, r.dir, syntheticEvent(t, r, false))
	cmd := exec.Command(os.Args[0], append([]string{"action"}, args...)...)
	cmd.Env = append(os.Environ(), asMain+"=1")
	out, err := cmd.CombinedOutput()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running prodready action: %v", err)
	}
	return env, string(out), code
}

// checkChartFindings is what `prodready check` finds in the chart, as
// "file rule" pairs relative to the repository root.
func checkChartFindings(t *testing.T, r *actionRepo) map[string]bool {
	t.Helper()
	return checkFindings(t, r, "charts/web")
}

// checkFindings is what `prodready check` finds in folder of r, as "file
// rule" pairs relative to the repository root.
func checkFindings(t *testing.T, r *actionRepo, folder string) map[string]bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "check", "--format", "json", folder)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), asMain+"=1")
	out, _ := cmd.Output()
	var rep struct {
		Findings []struct{ File, Rule string }
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("prodready check --format json: %v\n%s", err, out)
	}
	got := map[string]bool{}
	for _, f := range rep.Findings {
		got[f.File+" "+f.Rule] = true
	}
	if len(got) < 5 {
		t.Fatalf("prodready check found only %v in %s", got, folder)
	}
	return got
}

// TestActionModesRenderTheChartAPullRequestAdds runs the Action's three
// modes as processes on a pull request that adds a Helm chart: each
// reports the chart's findings at its template and values lines, and the
// SARIF file holds what `prodready check` finds on the chart's folder.
func TestActionModesRenderTheChartAPullRequestAdds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the action as processes; skipped with -short")
	}
	r := chartRepo(t)
	want := checkChartFindings(t, r)

	t.Run("sarif", func(t *testing.T) {
		sameAsCheck(t, r, want)
	})

	t.Run("annotations", func(t *testing.T) {
		fake := newActionFake(t, r, "acme", "deploys", 7)
		env, out, code := runActionProcess(t, fake, r, "--mode", "annotations", "--fail-on", "warning")
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, out)
		}
		if !strings.Contains(out, "file=charts/web/templates/deployment.yaml,line=") {
			t.Errorf("no annotation on the chart's template:\n%s", out)
		}
		if w := writes(fake); len(w) != 0 {
			t.Errorf("annotations mode wrote to GitHub: %v", w)
		}
		if !strings.Contains(readFile(t, env.summary), "charts/web/templates/deployment.yaml") {
			t.Error("the job summary does not name the chart's template")
		}
	})

	t.Run("review", func(t *testing.T) {
		fake := newActionFake(t, r, "acme", "deploys", 7)
		_, out, code := runActionProcess(t, fake, r, "--mode", "review", "--fail-on", "warning")
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, out)
		}
		inline := 0
		for _, rv := range fake.Reviews("acme", "deploys") {
			for _, c := range rv.Comments {
				if strings.HasPrefix(c.Path, "charts/web/") {
					inline++
				}
			}
		}
		runs := fake.CheckRuns("acme", "deploys")
		if inline == 0 || len(runs) != 1 || runs[0].Conclusion != "failure" {
			t.Errorf("%d inline comments on the chart, check runs %+v\n%s", inline, runs, out)
		}
	})
}

// sameAsCheck runs the Action's sarif mode as a process on r's pull request
// and holds its SARIF file to want, what `prodready check` finds.
func sameAsCheck(t *testing.T, r *actionRepo, want map[string]bool) {
	t.Helper()
	fake := newActionFake(t, r, "acme", "deploys", 7)
	sarif := filepath.Join(t.TempDir(), "prodready.sarif")
	_, out, code := runActionProcess(t, fake, r, "--mode", "sarif", "--fail-on", "warning", "--sarif-file", sarif)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (findings)\n%s", code, out)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(readFile(t, sarif)), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %v", err)
	}
	got := map[string]bool{}
	for _, res := range log.Runs[0].Results {
		got[res.Locations[0].PhysicalLocation.ArtifactLocation.URI+" "+res.RuleID] = true
	}
	for k := range want {
		if !got[k] {
			t.Errorf("check finds %s; the SARIF file lacks it", k)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("the SARIF file has %s, which check does not find", k)
		}
	}
}

// TestActionSarifSaysAPatchSelectsNothing runs the Action's sarif mode as a
// process on a pull request that adds an overlay whose patches, or
// replacements, select nothing (each rule's fixture): the SARIF file
// reports them where check does, at the overlay's kustomization and the
// replacement's own file.
func TestActionSarifSaysAPatchSelectsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the action as a process; skipped with -short")
	}
	for _, c := range []struct{ rule, file string }{
		{"kustomize-patch-unmatched", "deploy/prod/kustomization.yaml"},
		{"kustomize-replacement-unmatched", "deploy/prod/worker-host.yaml"},
	} {
		t.Run(c.rule, func(t *testing.T) {
			r := addingRepo(t, "../../fixtures/rules/"+c.rule, "deploy")
			want := checkFindings(t, r, "deploy")
			if !want[c.file+" "+c.rule] {
				t.Fatalf("check does not report the overlay's %s: %v", c.rule, want)
			}
			sameAsCheck(t, r, want)
		})
	}
}
