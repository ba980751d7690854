// Package cli is the prodready command line: check, fix, rules, review
// (of a local git range), version and completion, on spf13/cobra with GNU
// flags (pflag). The one binary, cmd/prodready, adds the webhook server
// and the GitHub Action step as extra commands.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
)

// Exit codes.
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2
)

// IO is where a command reads and writes.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// Extra builds a command a binary adds to the command line's own, for
// one run writing to io.
type Extra func(std IO) *cobra.Command

// ExitCode ends a command with a process exit code; whatever it had to
// say it has printed already. A command's RunE returns it.
type ExitCode int

func (e ExitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// Exit is the error a command's RunE returns to exit with code: nil for
// ExitOK.
func Exit(code int) error {
	if code == ExitOK {
		return nil
	}
	return ExitCode(code)
}

// usageError is a mistake on the command line: printed with the command's
// name and a pointer to its help, exit 2.
type usageError struct{ error }

// UsageErrorf is a command-line mistake in a command's own terms
// ("--mode: want review, annotations or sarif"); Run prints it with a
// pointer to the command's help and exits 2.
func UsageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
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
	// Isolate, when set, is the renderer of check, fix and review under
	// --isolate-renders: each chart and overlay rendered in a child
	// process of this binary under lim, processes at once.
	Isolate func(lim rendered.Limits, processes int) (rendered.Renderer, error)
	// Offline, when set, is called before check, fix and review, which
	// render what they are given in this process and send no request of
	// their own: it makes the process refuse network requests
	// (render.DenyNetwork).
	Offline func()
}

// Run runs the command args name and returns the process exit code.
func (p Program) Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := p.Command(IO{In: stdin, Out: stdout, Err: stderr})
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var code ExitCode
	if errors.As(err, &code) {
		return int(code)
	}
	name := p.Name
	if cmd != nil {
		name = cmd.CommandPath()
	}
	msg := err.Error()
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	fmt.Fprintf(stderr, "%s: %s", name, msg)
	fmt.Fprintf(stderr, "Run '%s -h' for help.\n", name)
	return ExitUsage
}

// Command is the program's root command, writing to io.
func (p Program) Command(std IO) *cobra.Command {
	root := &cobra.Command{
		Use:   p.Name,
		Short: "Review Kubernetes YAML against production best practice",
		Long: p.Name + ` reviews Kubernetes YAML (plain manifests, Helm charts and kustomize
overlays) against production best practice: in a terminal, in CI, as a
pre-commit hook, or as a GitHub App / GitLab bot on pull requests.`,
		Version:       p.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Only `prodready` alone: the subcommands have their own.
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(std.Err)
			cmd.Help()
			return Exit(ExitUsage)
		},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return applyEnv(cmd.Flags())
		},
	}
	root.SetIn(std.In)
	root.SetOut(std.Out)
	root.SetErr(std.Err)
	root.SetVersionTemplate(p.Name + " {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.PersistentFlags().Bool("no-color", false, "print no colour, even on a terminal (NO_COLOR in the environment does the same; FORCE_COLOR=1 colours what is not a terminal)")
	root.AddGroup(&cobra.Group{ID: "repo", Title: "Check a repository:"}, &cobra.Group{ID: "bot", Title: "Run the bot:"})
	offline := func(*cobra.Command, []string) {
		if p.Offline != nil {
			p.Offline()
		}
	}
	for _, c := range []*cobra.Command{p.checkCommand(std), p.fixCommand(std), p.reviewCommand(std), rulesCommand(std)} {
		c.GroupID = "repo"
		if c.Name() != "rules" {
			c.PreRun = offline
		}
		root.AddCommand(c)
	}
	root.AddCommand(p.versionCommand(std), docsCommand(root, std))
	for _, e := range p.Extra {
		c := e(std)
		if !c.Hidden {
			c.GroupID = "bot"
		}
		root.AddCommand(c)
	}
	root.SetHelpCommandGroupID("")
	root.SetCompletionCommandGroupID("")
	return root
}

func (p Program) versionCommand(std IO) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(std.Out, p.Name, p.Version)
			return nil
		},
	}
}

// flagError is every command's answer to a flag it cannot parse: pflag's
// message, with the nearest flag's name when the flag is unknown
// (`--formt`: did you mean --format?).
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var name string
	if n, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name = n
	} else if n, ok := strings.CutPrefix(msg, "unknown shorthand flag: "); ok {
		// "'f' in -formt": a long flag given with one dash.
		if _, word, ok := strings.Cut(n, " in -"); ok {
			name = word
			msg = fmt.Sprintf("unknown flag -%s (long flags take two dashes)", word)
		}
	}
	if name != "" {
		var known []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { known = append(known, f.Name) })
		if s := checks.Closest(name, known); s != "" {
			suggest := "--" + s
			// A hidden old spelling suggests the flag that replaced it.
			if f := cmd.Flags().Lookup(s); f != nil && f.Hidden && len(f.Annotations[aliasAnnotation]) == 1 {
				suggest = f.Annotations[aliasAnnotation][0]
			}
			msg += fmt.Sprintf(" (did you mean %s?)", suggest)
		}
	}
	return usageError{errors.New(msg)}
}

// aliasAnnotation is the annotation of a hidden flag kept for an old
// spelling (--format): the flag to suggest in its place ("-o/--output").
const aliasAnnotation = "prodready_alias"

// hideAlias hides the flag name of cmd, kept for an old spelling, and
// names the flag a suggestion offers in its place.
func hideAlias(cmd *cobra.Command, name, instead string) {
	cmd.Flags().MarkHidden(name)
	cmd.Flags().SetAnnotation(name, aliasAnnotation, []string{instead})
}

// colorOn reports whether w gets colour: a terminal, unless --no-color or
// NO_COLOR (any value but empty) says otherwise; FORCE_COLOR (any value
// but empty or 0) colours what is not a terminal (a CI log that shows
// colour), unless --no-color or NO_COLOR says otherwise.
func colorOn(cmd *cobra.Command, w io.Writer) bool {
	if no, _ := cmd.Flags().GetBool("no-color"); no {
		return false
	}
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	if f := os.Getenv("FORCE_COLOR"); f != "" && f != "0" {
		return true
	}
	return isTerminal(w)
}
