// Command prodready reviews Kubernetes YAML — plain manifests, Helm charts
// and kustomize overlays — against production best practice. It is one
// binary with every way prodready runs: `check` prints findings, `fix`
// applies fixes, `review` prints the review of a local git range, `rules`
// lists the catalog, `serve` runs the GitHub App / GitLab webhook server,
// `action` is the GitHub Action step, `version` prints the version. Helm
// and kustomize are linked in: the CLI renders charts and overlays in its
// own process; `serve` and `action`, which render pull-request content,
// render each folder in a child process of this same binary (the hidden
// render-worker command) under memory and CPU limits.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/cmd/internal/cli"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	p := cli.Program{Name: "prodready", Version: cli.Version(version), Render: render.InProcess, Extra: []cli.Extra{
		{Name: "serve", Synopsis: "serve [flags]", Summary: "run the GitHub App / GitLab webhook server", Run: runServe},
		{Name: "action", Synopsis: "action [flags]", Summary: "review a pull request as the GitHub Action step", Run: runActionCommand},
		{Name: renderWorkerCommand, Hidden: true, Run: runRenderWorker},
	}}
	return p.Run(args, stdin, stdout, stderr)
}

// renderWorkerCommand is the hidden command a render child runs: this same
// binary, so the request and answer formats cannot drift between versions.
const renderWorkerCommand = "render-worker"

// runRenderWorker is the render-worker command: it reads one folder's files
// on standard input and writes the renders on standard output
// (rendered.Serve), then exits.
func runRenderWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "prodready render-worker: takes no arguments (a request on standard input); it is started by prodready itself")
		return cli.ExitUsage
	}
	if err := rendered.Serve(stdin, stdout, render.Streaming); err != nil {
		fmt.Fprintln(stderr, "prodready render-worker:", err)
		return cli.ExitUsage
	}
	return cli.ExitOK
}
