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

	"github.com/spf13/cobra"

	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/cmd/internal/cli"
	"github.com/prodready/prodready/internal/initgc"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	initgc.Restore() // the collector was off while the packages initialized
	stderr := os.Stderr
	restore := dedupeStrayStderr(stderr)
	code := run(os.Args[1:], os.Stdin, os.Stdout, stderr)
	restore()
	os.Exit(code)
}

// denyNetwork makes the process refuse network requests: render.DenyNetwork,
// for check, fix, review and render-worker, which send none of their own
// (serve and action talk to GitHub and GitLab through the default
// transport). The package's tests, which run those commands in the test
// process beside servers they reach through the default transport, replace
// it unless the test binary runs as prodready.
var denyNetwork = render.DenyNetwork

// run runs the command args name and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program().Run(args, stdin, stdout, stderr)
}

// program is the one prodready: the command line's commands, and serve,
// action and the hidden render-worker.
func program() cli.Program {
	return cli.Program{Name: "prodready", Version: cli.Version(version), Render: render.InProcess, Isolate: isolatedRenderer, Offline: func() { denyNetwork() },
		Extra: []cli.Extra{serveCommand, actionCommand, renderWorkerCommand}}
}

// renderWorkerName is the hidden command a render child runs: this same
// binary, so the request and answer formats cannot drift between versions.
const renderWorkerName = "render-worker"

// renderWorkerCommand is the render-worker command: it sets the limits its
// flags carry on itself (rendered.Limits.Args), refuses every network
// request, reads one request on standard input and writes the renders on
// standard output (rendered.Serve), then exits.
func renderWorkerCommand(std cli.IO) *cobra.Command {
	var lim rendered.Limits
	cmd := &cobra.Command{
		Use:    renderWorkerName,
		Short:  "Render one request of charts and overlays (started by prodready itself)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := rendered.ApplyLimits(lim); err != nil {
				fmt.Fprintln(std.Err, "prodready render-worker:", err)
				return cli.Exit(cli.ExitUsage)
			}
			denyNetwork()
			if err := rendered.Serve(std.In, std.Out, render.Streaming); err != nil {
				fmt.Fprintln(std.Err, "prodready render-worker:", err)
				return cli.Exit(cli.ExitUsage)
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&lim.Memory, "memory", 0, "data segment limit in bytes (0: none)")
	cmd.Flags().DurationVar(&lim.CPU, "cpu", 0, "CPU-time limit (0: none)")
	return cmd
}
