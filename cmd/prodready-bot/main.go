// Command prodready-bot is prodready where it reviews for a host: `serve`
// runs the GitHub App / GitLab webhook server, `action` is the GitHub
// Action step. It has every command of the prodready CLI besides (check,
// fix, rules, review), so its container image needs no second binary.
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

// denyNetwork makes the process refuse network requests: render.DenyNetwork,
// for check, fix, review and render, which send none of their own (serve
// and action talk to GitHub and GitLab through the default transport). The
// package's tests, which run those commands in the test process beside
// servers they reach through the default transport, replace it unless the
// test binary runs as prodready-bot.
var denyNetwork = render.DenyNetwork

// run dispatches a subcommand and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	p := cli.Program{Name: "prodready-bot", Version: cli.Version(version), Render: render.InProcess, Offline: func() { denyNetwork() }, Extra: []cli.Extra{
		{Name: "serve", Synopsis: "serve [flags]", Summary: "run the GitHub App / GitLab webhook server", Run: runServe},
		{Name: "action", Synopsis: "action [flags]", Summary: "review a pull request as the GitHub Action step", Run: runActionCommand},
		{Name: "render", Synopsis: "render", Summary: "render charts and overlays for prodready check (a worker: JSON on stdin and stdout)", Run: runRenderWorker},
	}}
	return p.Run(args, stdin, stdout, stderr)
}

// runRenderWorker is the render command: the lean prodready CLI sends it a
// folder's files and reads back the renders (rendered.Worker). It sends no
// request of its own, so the process refuses every one (render.DenyNetwork).
func runRenderWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "prodready-bot render: takes no arguments (a request on standard input)")
		return cli.ExitUsage
	}
	denyNetwork()
	if err := rendered.Serve(stdin, stdout, render.Streaming); err != nil {
		fmt.Fprintln(stderr, "prodready-bot render:", err)
		return cli.ExitUsage
	}
	return cli.ExitOK
}
