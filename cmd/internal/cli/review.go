package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/vcs/local"
)

// runReview is the review command; render renders the charts and overlays
// the commits touch (nil: none is rendered).
func runReview(render rendered.Renderer, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("review", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "", "the branch or commit the pull request goes into (required); the review covers base...HEAD")
	dir := fs.String("C", "", "run in this folder instead of the current one")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: prodready review --base <ref> [-C dir]\n\nPrints the review prodready would post for the commits base...HEAD of a git checkout: inline comments with suggestions, then the summary. No network.\nThe GitHub Action step is prodready action (see docs/action.md).")
		fs.PrintDefaults()
	}
	rest, err := ParseFlags(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if *base == "" || len(rest) > 0 {
		fs.Usage()
		return ExitUsage
	}
	ctx := context.Background()
	h := &local.Host{Dir: *dir}
	if err := h.Check(ctx); err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return ExitUsage
	}
	pr, err := h.PullRequest(ctx, *base)
	if err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return ExitUsage
	}
	rv := bot.NewReviewer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	rv.Render = render
	if err := rv.Review(ctx, h, pr); err != nil {
		fmt.Fprintln(stderr, "prodready review:", err)
		return ExitUsage
	}
	if h.Published == nil {
		fmt.Fprintln(stdout, "Nothing to review (a draft, or no change).")
		return ExitOK
	}
	writeReview(stdout, *h.Published)
	if h.Published.Conclusion == "failure" {
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
