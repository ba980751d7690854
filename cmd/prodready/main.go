// Command prodready reviews Kubernetes YAML against production best
// practice: `check` prints findings, `fix` applies suggested fixes,
// `rules` lists the catalog, `review` prints the review of a local git
// range. The GitHub App / GitLab webhook server and the GitHub Action step
// are cmd/prodready-bot.
package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/cmd/internal/cli"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	p := cli.Program{Name: "prodready", Version: cli.Version(version), Elsewhere: map[string]string{
		"serve":  "prodready-bot serve (go install github.com/prodready/prodready/cmd/prodready-bot)",
		"action": "prodready-bot action (the GitHub Action step; see docs/action.md)",
	}, Render: renderWorker()}
	os.Exit(p.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// renderWorker renders through prodready-bot as a separate process (its
// render command), found beside this binary or on PATH: this binary does
// not link the Helm and kustomize libraries, whose start-up alone would
// double a plain run's memory. Without prodready-bot, charts and overlays
// are reported as not rendered, with how to install it.
func renderWorker() rendered.Renderer {
	program := ""
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), "prodready-bot"+filepath.Ext(self)); isFile(p) {
			program = p
		}
	}
	if program == "" {
		program, _ = exec.LookPath("prodready-bot")
	}
	if program == "" {
		return func(context.Context, rendered.Files, rendered.Options) (rendered.Result, error) {
			return rendered.Result{}, errors.New("rendering runs in prodready-bot, which is not installed beside prodready or on PATH (go install github.com/prodready/prodready/cmd/prodready-bot@latest)")
		}
	}
	return rendered.Worker(program, "render")
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
