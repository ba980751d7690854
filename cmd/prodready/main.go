// Command prodready reviews Kubernetes YAML against production best
// practice: `check` prints findings, `fix` applies suggested fixes, `rules`
// lists the catalog, `review` reviews a pull request, `serve` runs the
// GitHub App and GitLab webhook server.
package main

import (
	"fmt"
	"io"
	"os"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit codes.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the process exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "check":
		return runCheck(rest, stdin, stdout, stderr)
	case "rules":
		return runRules(rest, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "prodready", version)
		return exitOK
	case "help", "-h", "--help":
		usage(stdout)
		return exitOK
	}
	if sub, ok := extraCommands[cmd]; ok {
		return sub(rest, stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "prodready: unknown command %q\n\n", cmd)
	usage(stderr)
	return exitUsage
}

// extraCommands are the subcommands that live in their own files
// (fix, review, serve), keyed by name.
var extraCommands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{}

func usage(w io.Writer) {
	fmt.Fprint(w, `prodready reviews Kubernetes YAML against production best practice.

Usage:
  prodready check [flags] [paths… | -]   check files and folders (default .)
  prodready fix [flags] [paths…]         apply suggested fixes in place
  prodready rules [--markdown]           list every rule
  prodready review [flags]               review a pull request or a local git range
  prodready serve [flags]                run the GitHub App / GitLab webhook server
  prodready version

Run "prodready <command> -h" for a command's flags.
`)
}
