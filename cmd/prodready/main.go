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
	"flag"
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

// denyNetwork makes the process refuse network requests: render.DenyNetwork,
// for check, fix, review and render-worker, which send none of their own
// (serve and action talk to GitHub and GitLab through the default
// transport). The package's tests, which run those commands in the test
// process beside servers they reach through the default transport, replace
// it unless the test binary runs as prodready.
var denyNetwork = render.DenyNetwork

// run dispatches a subcommand and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	p := cli.Program{Name: "prodready", Version: cli.Version(version), Render: render.InProcess, Offline: func() { denyNetwork() }, Extra: []cli.Extra{
		{Name: "serve", Synopsis: "serve [flags]", Summary: "run the GitHub App / GitLab webhook server", Run: runServe},
		{Name: "action", Synopsis: "action [flags]", Summary: "review a pull request as the GitHub Action step", Run: runActionCommand},
		{Name: renderWorkerCommand, Hidden: true, Run: runRenderWorker},
	}}
	return p.Run(args, stdin, stdout, stderr)
}

// renderWorkerCommand is the hidden command a render child runs: this same
// binary, so the request and answer formats cannot drift between versions.
const renderWorkerCommand = "render-worker"

// runRenderWorker is the render-worker command: it sets the limits its
// flags carry on itself (rendered.Limits.Args), refuses every network
// request, reads one request on standard input and writes the renders on
// standard output (rendered.Serve), then exits.
func runRenderWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(renderWorkerCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	memory := fs.Int64("memory", 0, "data segment limit in bytes (0: none)")
	cpu := fs.Duration("cpu", 0, "CPU-time limit (0: none)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "prodready render-worker: takes --memory and --cpu, and a request on standard input; it is started by prodready itself")
		return cli.ExitUsage
	}
	if err := rendered.ApplyLimits(rendered.Limits{Memory: *memory, CPU: *cpu}); err != nil {
		fmt.Fprintln(stderr, "prodready render-worker:", err)
		return cli.ExitUsage
	}
	denyNetwork()
	if err := rendered.Serve(stdin, stdout, render.Streaming); err != nil {
		fmt.Fprintln(stderr, "prodready render-worker:", err)
		return cli.ExitUsage
	}
	return cli.ExitOK
}
