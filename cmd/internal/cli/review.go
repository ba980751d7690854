package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/internal/plural"
	"github.com/prodready/prodready/vcs/local"
)

// reviewFlags are review's flags.
type reviewFlags struct {
	base, dir, config, failOn string
	out                       outputFlags
	iso                       *isolation
}

func (p Program) reviewCommand(std IO) *cobra.Command {
	f := &reviewFlags{}
	cmd := &cobra.Command{
		Use:   "review --base <ref> [flags]",
		Short: "Print the review of a local git range",
		Long: `Prints the review prodready would post for the commits base...HEAD of a git
checkout: inline comments with suggestions, then the summary (-o text), or
the findings the review reports in another format. No network. The config is
.prodready.yaml at the base commit, as the bot reads it, unless --config
names a file. The GitHub Action step is prodready action (see docs/action.md).

Exit code: 1 when the review fails (a finding the pull request brings is at
or above --fail-on), 2 on a usage error, else 0.`,
		Example: `  prodready review --base main
  prodready review --base origin/main -C ~/src/app -o json
  prodready review --base main --fail-on warning`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return Exit(p.runReview(cmd, f, std))
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.base, "base", "", "the branch or commit the pull request goes into (required); the review covers base...HEAD")
	cmd.MarkFlagRequired("base")
	fs.StringVarP(&f.dir, "directory", "C", "", "run in this folder instead of the current one")
	cmd.MarkFlagDirname("directory")
	fs.StringVarP(&f.config, "config", "c", "", "config file in the working tree (default: "+checks.ConfigFileName+" at the base commit, as the bot reads it)")
	addFailOnFlag(cmd, &f.failOn)
	addOutputFlags(cmd, &f.out)
	f.iso = addIsolation(cmd)
	return cmd
}

// runReview is the review command; render renders the charts and overlays
// the commits touch (nil: none is rendered).
func (p Program) runReview(cmd *cobra.Command, f *reviewFlags, std IO) int {
	stdout, stderr := std.Out, std.Err
	format, outFile, err := f.out.resolve(cmd.Flags(), stderr)
	if err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return ExitUsage
	}
	render, err := p.renderer(cmd, f.iso)
	if err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return ExitUsage
	}
	ctx := context.Background()
	h := &local.Host{Dir: f.dir}
	if err := h.Check(ctx); err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return ExitUsage
	}
	pr, err := h.PullRequest(ctx, f.base)
	if err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return ExitUsage
	}
	var cfg *checks.Config
	if f.config != "" {
		if cfg, err = checks.LoadConfig(f.config, catalog.Default()); err != nil {
			fmt.Fprintln(stderr, "prodready review:", err)
			return ExitUsage
		}
	} else if cfg, err = bot.LoadConfig(ctx, h, pr); err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return ExitUsage
	}
	if f.failOn != "" {
		sev, err := checks.ParseSeverity(f.failOn)
		if err != nil {
			fmt.Fprintln(stderr, "prodready review: --fail-on:", err)
			return ExitUsage
		}
		cfg.SetFailOn(sev)
	}
	if paths, err := h.Uncommitted(ctx); err == nil && len(paths) > 0 {
		// Not reviewed, and not a silent pass: said, with the way in.
		fmt.Fprintf(stderr, "prodready review: %s not committed, so not reviewed (the review covers the commits %s...HEAD; commit them to include them): %s\n",
			plural.Count(len(paths), "file has changes", "files have changes"), f.base, namedPaths(paths, 3))
	}
	rv := bot.NewReviewer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	rv.Render = render
	r, err := rv.Prepare(ctx, h, pr, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return ExitUsage
	}
	out := stdout
	if outFile != "" {
		file, err := os.Create(outFile)
		if err != nil {
			fmt.Fprintln(stderr, "prodready review:", err)
			return ExitUsage
		}
		defer file.Close()
		out = file
	}
	if format == "text" {
		writeReview(out, r)
	} else {
		// The review's findings, and the changed files it read but did
		// not check, with why: every format names them.
		opts := report.Options{Version: p.Version, Color: colorOn(cmd, out)}
		stream, err := report.NewStream(out, format, opts)
		if err == nil {
			err = stream.Add(r.Findings)
		}
		if err == nil {
			err = stream.CloseCounted(r.Files, r.Objects, r.NotChecked)
		}
		if err != nil {
			fmt.Fprintln(stderr, "prodready review:", err)
			return ExitUsage
		}
	}
	if r.Conclusion == "failure" {
		return ExitFindings
	}
	return ExitOK
}

// writeReview prints a review as it would be posted.
func writeReview(w io.Writer, r bot.Review) {
	var b strings.Builder
	fmt.Fprintf(&b, "Review: %s (%s)\n", r.Title, r.Conclusion)
	for _, c := range r.Comments {
		lines := fmt.Sprintf("line %d", c.Line)
		if c.StartLine > 0 && c.StartLine < c.Line {
			lines = fmt.Sprintf("lines %d-%d", c.StartLine, c.Line)
		}
		fmt.Fprintf(&b, "\n=== %s %s\n%s", c.Path, lines, c.Body)
	}
	if r.Body != "" {
		fmt.Fprintf(&b, "\n=== review body\n%s\n", r.Body)
	}
	if len(r.Outside) > 0 {
		b.WriteString("\n=== findings not on added lines (check-run annotations)\n")
		for _, f := range r.Outside {
			fmt.Fprintf(&b, "%s:%d %s %s %s\n", f.File, f.Line, f.Severity, f.RuleID, f.Message)
		}
	}
	fmt.Fprintf(&b, "\n=== summary\n%s", r.Summary)
	io.WriteString(w, b.String())
}

// namedPaths names the first n of paths, and how many more there are.
func namedPaths(paths []string, n int) string {
	if len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:n], ", ") + fmt.Sprintf(" and %d more", len(paths)-n)
}
