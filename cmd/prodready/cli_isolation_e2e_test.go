package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testconfig"
)

// TestCheckIsolatesRendersWhenAsked runs `prodready check
// --isolate-renders` as a process, held to a 1 GiB data segment as a CI
// job's container might be, on a repository whose charts and overlay are
// built to take the machine (hostileCharts: a 20 GB string, ten billion
// loop turns, endless include, 100,000 documents, an alias bomb) beside a
// plain manifest: each is a render-failed finding naming its limit, the
// manifest's finding is reported, and the check ends as a check does.
// fix and review take the flag too; the limits' flags without
// --isolate-renders are a usage error.
func TestCheckIsolatesRendersWhenAsked(t *testing.T) {
	if testing.Short() {
		t.Skip("renders charts built to run away; skipped with -short")
	}
	files := map[string]string{"deploy/app.yaml": replicaManifest("metrics"), ".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared")}
	for p, data := range hostileCharts {
		files[p] = data
	}
	repo := writeRepo(t, files)
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Log("prlimit (util-linux) is not installed: prodready runs without a memory limit of its own")
	}
	// limited runs prodready args in dir under a 1 GiB data segment.
	limited := func(dir string, args ...string) (string, int) {
		args = append([]string{os.Args[0]}, args...)
		if prlimit != "" {
			args = append([]string{prlimit, "--data=1073741824"}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), asMain+"=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if exit, ok := err.(*exec.ExitError); ok {
			return out.String(), exit.ExitCode()
		} else if err != nil {
			t.Fatalf("running prodready %v: %v", args, err)
		}
		return out.String(), 0
	}
	text, code := limited(repo, "check", "--isolate-renders", "--render-cpu", "4s", "-o", "compact", ".")
	if code != 1 {
		t.Fatalf("check --isolate-renders: exit %d, want 1 (render-failed errors):\n%s", code, text)
	}
	for _, want := range []string{"charts/mem/Chart.yaml", "memory limit of 256 MiB", "charts/cpu/Chart.yaml", "CPU-time limit of 4s", "charts/loop/", "charts/many/Chart.yaml", "deploy/alias/kustomization.yaml", "deploy/app.yaml:"} {
		if !strings.Contains(text, want) {
			t.Errorf("check --isolate-renders does not name %q:\n%s", want, text)
		}
	}
	// fix and review render through the same flag.
	if text, code := limited(repo, "fix", "--isolate-renders", "--dry-run", "charts/mem"); code != 0 || !strings.Contains(text, "nothing to fix") {
		t.Errorf("fix --isolate-renders --dry-run charts/mem: exit %d, want nothing to fix:\n%s", code, text)
	}
	branch := featureRepo(t, map[string]string{"deploy/app.yaml": files["deploy/app.yaml"], ".prodready.yaml": files[".prodready.yaml"]})
	for _, p := range []string{"charts/mem/Chart.yaml", "charts/mem/templates/cm.yaml"} {
		if err := os.MkdirAll(filepath.Join(branch, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(branch, p), []byte(hostileCharts[p]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, branch, "add", ".")
	gitIn(t, branch, "commit", "-q", "-m", "a chart that asks for 20 GB")
	if text, code := limited(branch, "review", "--isolate-renders", "--base", "main", "-o", "compact"); code != 1 || !strings.Contains(text, "charts/mem/Chart.yaml") || !strings.Contains(text, "memory limit of 256 MiB") {
		t.Errorf("review --isolate-renders --base main: exit %d, want the chart's render-failed error at its memory limit:\n%s", code, text)
	}

	_, stderr, code := runCLI(t, repo, "check", "--render-memory", "536870912", "deploy")
	if code != 2 || !strings.Contains(stderr, "--isolate-renders") {
		t.Errorf("check --render-memory without --isolate-renders: exit %d, %q; want a usage error that names --isolate-renders", code, stderr)
	}
}
