// Package cli is the prodready command line: check, fix, rules, review
// (of a local git range) and version. Two binaries serve it: the CLI
// (cmd/prodready) and the bot (cmd/prodready-bot), which adds the webhook
// server and the GitHub Action step. They are apart so that the CLI does
// not link the GitHub and GitLab API clients: their types are most of the
// bot binary's type data, which the Go runtime maps at every start (3 MiB
// of resident memory and a sixth of a one-file check's time).
package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/prodready/prodready/checks/rendered"
)

// Exit codes.
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2
)

// Command runs one subcommand with its arguments and returns the process
// exit code.
type Command func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Extra is a subcommand a binary adds to the command line's own.
type Extra struct {
	Name string
	// Synopsis follows the program's name in the usage text ("serve
	// [flags]"); Summary says what it does.
	Synopsis, Summary string
	Run               Command
}

// Program is one binary: its name and version (stamped at build time) and
// the subcommands it adds.
type Program struct {
	Name, Version string
	Extra         []Extra
	// Elsewhere names, for a command this binary does not have, where it
	// is ("serve": "prodready-bot serve"), so an old script gets told.
	Elsewhere map[string]string
	// Render renders the Helm charts and kustomize overlays that check
	// finds (in process in prodready-bot; through prodready-bot as a worker
	// process in the lean prodready), and that fix renders to edit the
	// values files that feed them. Nil: they are reported as not
	// rendered.
	Render rendered.Renderer
	// Offline, when set, is called before check, fix and review, which
	// render pull-request content and send no request of their own: it
	// makes the process refuse network requests (render.DenyNetwork in
	// prodready-bot, whose renders run in process; the lean prodready
	// renders in a prodready-bot render worker, which refuses them
	// itself).
	Offline func()
}

// Run dispatches a subcommand and returns the process exit code.
func (p Program) Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		p.usage(stderr)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "check", "fix", "review":
		if p.Offline != nil {
			p.Offline()
		}
	}
	switch cmd {
	case "check":
		return runCheck(p.Version, p.Render, rest, stdin, stdout, stderr)
	case "fix":
		return runFix(p.Render, rest, stdin, stdout, stderr)
	case "rules":
		return runRules(rest, stdout, stderr)
	case "review":
		return runReview(p.Render, rest, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "prodready", p.Version)
		return ExitOK
	case "help", "-h", "--help":
		p.usage(stdout)
		return ExitOK
	}
	for _, e := range p.Extra {
		if e.Name == cmd {
			return e.Run(rest, stdin, stdout, stderr)
		}
	}
	if where, ok := p.Elsewhere[cmd]; ok {
		fmt.Fprintf(stderr, "%s: %q is not a command of this binary: run %s\n", p.Name, cmd, where)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n\n", p.Name, cmd)
	p.usage(stderr)
	return ExitUsage
}

func (p Program) usage(w io.Writer) {
	lines := [][2]string{
		{"check [flags] [paths… | -]", "check files and folders (default .)"},
		{"fix [flags] [paths…]", "apply suggested fixes in place"},
		{"rules [--markdown]", "list every rule"},
		{"review --base <ref>", "print the review of a local git range"},
	}
	for _, e := range p.Extra {
		lines = append(lines, [2]string{e.Synopsis, e.Summary})
	}
	lines = append(lines, [2]string{"version", ""})
	fmt.Fprint(w, "prodready reviews Kubernetes YAML against production best practice.\n\nUsage:\n")
	for _, l := range lines {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %s %-27s %s", p.Name, l[0], l[1]), " "))
	}
	fmt.Fprintf(w, "\nRun \"%s <command> -h\" for a command's flags.\n", p.Name)
}
