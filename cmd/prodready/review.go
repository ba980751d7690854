package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/vcs/local"
)

func init() {
	extraCommands["review"] = runReview
	extraCommands["serve"] = runServe
}

func runReview(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("review", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "", "the branch or commit the pull request goes into (required); the review covers base...HEAD")
	dir := fs.String("C", "", "run in this folder instead of the current one")
	act := addActionFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: prodready review --base <ref> [-C dir]\n       prodready review --action [--mode review|annotations|sarif] [flags]\n\nPrints the review prodready would post for the commits base...HEAD of a git checkout: inline comments with suggestions, then the summary. No network.\nWith --action it runs as the GitHub Action (see docs/action.md).")
		fs.PrintDefaults()
	}
	rest, err := parseFlags(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if act.enabled && *base == "" && len(rest) == 0 {
		return runAction(act, *dir, stdout, stderr)
	}
	if *base == "" || len(rest) > 0 {
		fs.Usage()
		return exitUsage
	}
	ctx := context.Background()
	h := &local.Host{Dir: *dir}
	if err := h.Check(ctx); err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return exitUsage
	}
	pr, err := h.PullRequest(ctx, *base)
	if err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return exitUsage
	}
	rv := bot.NewReviewer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := rv.Review(ctx, h, pr); err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return exitUsage
	}
	if h.Published == nil {
		fmt.Fprintln(stdout, "Nothing to review (a draft, or no change).")
		return exitOK
	}
	writeReview(stdout, *h.Published)
	if h.Published.Conclusion == "failure" {
		return exitFindings
	}
	return exitOK
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
