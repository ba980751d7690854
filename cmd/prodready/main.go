// Command prodready reviews Kubernetes YAML against production best
// practice: `check` prints findings, `fix` applies suggested fixes,
// `rules` lists the catalog, `review` prints the review of a local git
// range. The GitHub App / GitLab webhook server and the GitHub Action step
// are cmd/prodready-bot.
package main

import (
	"os"

	"github.com/prodready/prodready/cmd/internal/cli"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	p := cli.Program{Name: "prodready", Version: version, Elsewhere: map[string]string{
		"serve":  "prodready-bot serve (go install github.com/prodready/prodready/cmd/prodready-bot)",
		"action": "prodready-bot action (the GitHub Action step; see docs/action.md)",
	}}
	os.Exit(p.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
