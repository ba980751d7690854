package main

import (
	"bytes"
	"os"
	"os/exec"
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
// fix takes the flag too; the limits' flags without --isolate-renders
// are a usage error.
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
	// limited runs prodready args in repo under a 1 GiB data segment.
	limited := func(args ...string) (string, int) {
		args = append([]string{os.Args[0]}, args...)
		if prlimit != "" {
			args = append([]string{prlimit, "--data=1073741824"}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = repo
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
	text, code := limited("check", "--isolate-renders", "--render-cpu", "4s", "-o", "compact", ".")
	if code != 1 {
		t.Fatalf("check --isolate-renders: exit %d, want 1 (render-failed errors):\n%s", code, text)
	}
	for _, want := range []string{"charts/mem/Chart.yaml", "memory limit of 256 MiB", "charts/cpu/Chart.yaml", "CPU-time limit of 4s", "charts/loop/", "charts/many/Chart.yaml", "deploy/alias/kustomization.yaml", "deploy/app.yaml:"} {
		if !strings.Contains(text, want) {
			t.Errorf("check --isolate-renders does not name %q:\n%s", want, text)
		}
	}
	// fix renders through the same flag.
	if text, code := limited("fix", "--isolate-renders", "--dry-run", "charts/mem"); code != 0 || !strings.Contains(text, "nothing to fix") {
		t.Errorf("fix --isolate-renders --dry-run charts/mem: exit %d, want nothing to fix:\n%s", code, text)
	}

	_, stderr, code := runCLI(t, repo, "check", "--render-memory", "536870912", "deploy")
	if code != 2 || !strings.Contains(stderr, "--isolate-renders") {
		t.Errorf("check --render-memory without --isolate-renders: exit %d, %q; want a usage error that names --isolate-renders", code, stderr)
	}
}
