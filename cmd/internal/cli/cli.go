// Package cli is the prodready command line: check, fix, rules, review
// (of a local git range) and version. The one binary, cmd/prodready, adds
// the webhook server and the GitHub Action step as extra commands.
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
	// Hidden leaves the command out of the usage text: one prodready
	// starts itself, not one for people.
	Hidden bool
}

// Program is one binary: its name and version (stamped at build time) and
// the subcommands it adds.
type Program struct {
	Name, Version string
	Extra         []Extra
	// Render renders the Helm charts and kustomize overlays that check
	// finds, and that fix renders to edit the values files that feed them
	// (in process: the command line renders what its user gave it). Nil:
	// they are reported as not rendered.
	Render rendered.Renderer
	// Offline, when set, is called before check, fix and review, which
	// render what they are given in this process and send no request of
	// their own: it makes the process refuse network requests
	// (render.DenyNetwork).
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
		if e.Hidden {
			continue
		}
		lines = append(lines, [2]string{e.Synopsis, e.Summary})
	}
	lines = append(lines, [2]string{"version", ""})
	fmt.Fprint(w, "prodready reviews Kubernetes YAML against production best practice.\n\nUsage:\n")
	for _, l := range lines {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %s %-27s %s", p.Name, l[0], l[1]), " "))
	}
	fmt.Fprintf(w, "\nRun \"%s <command> -h\" for a command's flags.\n", p.Name)
}
