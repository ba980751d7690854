package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/prodready/prodready/checks/rendercache"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/checks/scan"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/internal/plural"
)

// fixFlags are fix's own flags.
type fixFlags struct {
	config            string
	rules             ruleList
	diff, dryRun, all bool
	over              *overrides
	iso               *isolation
}

func (p Program) fixCommand(std IO) *cobra.Command {
	f := &fixFlags{rules: ruleList{}}
	cmd := &cobra.Command{
		Use:   "fix [flags] [paths… | -]",
		Short: "Apply suggested fixes in place",
		Long: `Applies the fixes of the findings prodready check reports, in place, keeping
comments and layout; standard input (-) is fixed to standard output. The
config and the flags that change it are check's. A file inside a Helm chart
or kustomize folder, named alone, is fixed as part of its chart or overlay.`,
		Example: `  prodready fix --diff deploy/                       # show the changes, write nothing
  prodready fix --rule run-as-root,readonly-rootfs-missing deploy/
  prodready fix --min-severity warning --exclude 'vendor/**' .
  cat web.yaml | prodready fix --stdin-filename deploy/web.yaml - > fixed.yaml`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			render, err := p.renderer(cmd, f.iso)
			if err != nil {
				fmt.Fprintln(std.Err, "prodready:", err)
				return Exit(ExitUsage)
			}
			return Exit(runFix(render, f, paths, std))
		},
	}
	fs := cmd.Flags()
	addConfigFlag(cmd, &f.config)
	fs.Var(f.rules, "rule", "fix only these rules (comma-separated, repeatable)")
	cmd.RegisterFlagCompletionFunc("rule", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return ruleIDs(), cobra.ShellCompDirectiveNoFileComp
	})
	fs.BoolVar(&f.diff, "diff", false, "print a unified diff instead of writing files")
	fs.BoolVar(&f.dryRun, "dry-run", false, "say what would be fixed, write nothing")
	fs.BoolVar(&f.all, "all", false, "apply starting-point fixes too (resource sizes, UIDs, replica counts…: check them against the app); by default only exact fixes are applied, unless --rule names the rules")
	f.over = addOverrides(cmd)
	f.iso = addIsolation(cmd)
	return cmd
}

// runFix is the fix command; render renders the charts and overlays among
// the paths, so that their findings' fixes are edits of the values files
// (see fixRound).
func runFix(render rendered.Renderer, f *fixFlags, paths []string, std IO) int {
	// Each round renders the charts and builds the overlays again, and
	// verifying a fix renders again with it: a chart or overlay whose
	// inputs a fix did not change renders as before.
	cache := rendercache.New(fixRenderCacheBytes)
	render = keepVerifyRenders(cache, render)
	stdin, stdout, stderr := std.In, std.Out, std.Err
	over, rules, all, showDiff, dryRun := f.over, f.rules, &f.all, &f.diff, &f.dryRun
	rc, err := loadConfigWith(f.config, over)
	if err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	cfg := rc.Config
	// Files are read when a round checks them and held only once fixed,
	// unless charts or overlays are among them: their rounds read the
	// folders with the text as fixed so far.
	sel, err := selectInputs(cfg, paths, stdin, true)
	if err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	inputs := sel.inputs
	if rendered.HasRoots(inputs) {
		if inputs, err = readAll(inputs); err != nil {
			fmt.Fprintln(stderr, "prodready:", err)
			return ExitUsage
		}
	}
	warnGlobs(stderr, cfg)
	fromStdin := over.nameStdin(inputs)
	// Exact fixes only, unless --all, or --rule names what to fix. The
	// starting points left are those of the last round's check.
	var startingPoints int
	keep := func(f checks.Finding) bool {
		if f.Severity < over.min || (len(rules) > 0 && !rules[f.RuleID]) {
			return false
		}
		if len(rules) == 0 && !*all && f.Fixable() && !f.ExactFix() {
			if sel.wantsPath(f.File) {
				startingPoints++
			}
			return false
		}
		// Not in a chart's or overlay's files named (counted, to say so).
		return sel.wants(f)
	}
	// A chart fix found wrong in one round is not rendered again, and an
	// overlay whose files a round left as they were is not built again.
	memo := &rendered.FixMemo{Builds: cache}
	if len(rules) > 0 {
		// Only the rules named are fixed, so only their fixes are
		// verified. (Without --rule every fix is: the starting points an
		// exact run leaves are counted from the fixes verified.)
		memo.Want = func(f checks.Finding) bool { return rules[f.RuleID] }
	}
	fixed, outcome := fix.ConvergeStream(inputs, func(cur []checks.Input, emit func([]checks.Finding)) {
		startingPoints = 0
		sel.resetHidden()
		fixRound(cur, sel.folders, cfg, render, memo, emit)
	}, keep)
	files := 0
	for k, in := range inputs {
		out := fixed[k].Data
		if out == nil { // a file read for its round and left as it was
			continue
		}
		if in.Data == nil && in.Read != nil {
			if in.Data, err = in.Read(nil); err != nil {
				fmt.Fprintln(stderr, "prodready:", err)
				return ExitUsage
			}
		}
		if string(out) == string(in.Data) {
			if k == fromStdin && !*showDiff && !*dryRun {
				stdout.Write(out) // a filter writes its input even when nothing changed
			}
			continue
		}
		files++
		switch {
		case *showDiff:
			writeDiff(stdout, in.Path, in.Data, out)
		case *dryRun:
			// listed below
		case k == fromStdin:
			stdout.Write(out)
		default:
			if err := writeKeepingMode(in.Path, out); err != nil {
				fmt.Fprintln(stderr, "prodready:", err)
				return ExitUsage
			}
		}
	}
	// Fixed and left findings are counted and listed as check reports
	// them: one that several overlays make at one base line is one.
	fixedFindings := fixedOnce(outcome.Fixed)
	if *dryRun {
		for _, f := range fixedFindings {
			fmt.Fprintf(stdout, "%s:%d would fix %s: %s\n", f.File, f.Line, f.RuleID, f.Fix.Description)
		}
	}
	for _, fl := range outcome.Failed {
		f := fl.Finding
		fmt.Fprintf(stderr, "%s:%d %s: fix not applied: %v\n", f.File, f.Line, f.RuleID, fl.Err)
	}
	if !outcome.Converged {
		fmt.Fprintf(stderr, "prodready: fixes still changed the files after %d rounds; please report this\n", fix.MaxRounds)
	}
	// The findings left are on the lines of the files as the fixes left
	// them: those written, or, on a dry run or a diff, which write
	// nothing, the same lines of the files as they are.
	lineOf := func(f checks.Finding) int {
		if *dryRun || *showDiff {
			return outcome.InputLine(f.File, f.Line)
		}
		return f.Line
	}
	said := map[string]bool{}
	for _, f := range outcome.Remaining {
		if f.Fixable() || f.Severity < over.min || !sel.wantsPath(f.File) {
			continue
		}
		if withheldFix(f, keep) {
			// Offered by check, stopped by rendering again: say so, once
			// for a base line each of several overlays withholds alike.
			line := fmt.Sprintf("%s:%d %s: withheld: %s (%s)\n", f.File, lineOf(f), f.RuleID, f.Fix.Withheld, f.Fix.Description)
			if !said[line] {
				said[line] = true
				fmt.Fprint(stderr, line)
			}
		}
	}
	noFix, byHand, notApplied := 0, 0, 0
	fixedPaths := map[string]bool{}
	for _, in := range inputs {
		fixedPaths[slashClean(in.Path)] = true
	}
	failed := map[string]bool{} // said above, with the error
	for _, fl := range outcome.Failed {
		failed[fl.Finding.Fingerprint()] = true
	}
	for _, f := range rendered.MergeRenders(outcome.Remaining, 0) {
		switch {
		case f.Fixable() && f.Severity >= over.min && sel.wantsPath(f.File) && !withheldFix(f, keep) && !failed[f.Fingerprint()]:
			// A fix verified and kept that no round applied: its file
			// (a chart's values.yaml) is read for the render but is not
			// one the run changes.
			notApplied++
			why := "no round applied it (please report this)"
			if !fixedPaths[slashClean(f.File)] {
				why = checks.NotChangedReason(f.File)
			}
			fmt.Fprintf(stderr, "%s:%d %s: fix not applied: %s (%s)\n", f.File, lineOf(f), f.RuleID, why, f.Fix.Description)
		case f.Fixable() || f.Severity < over.min || !sel.wantsPath(f.File) || withheldFix(f, keep):
		case f.Fix != nil && f.Fix.Description != "" && f.Fix.Withheld == "":
			// A fix of a rendered object that no values key, plain
			// template line, base or patch line takes as it is: check
			// describes it, the author makes it.
			byHand++
			if *dryRun {
				fmt.Fprintf(stdout, "%s:%d by hand %s: %s\n", f.File, lineOf(f), f.RuleID, f.Fix.Description)
			}
		default:
			noFix++
		}
	}
	fmt.Fprintln(stderr, fixSummary(*showDiff || *dryRun, len(fixedFindings), files, len(outcome.Failed)+notApplied, noFix, byHand))
	command := "fix"
	if *all {
		command += " --all"
	}
	fmt.Fprint(stderr, sel.hiddenNote(command, "takes"))
	if startingPoints > 0 {
		fmt.Fprintf(stderr, "%s not applied: their values or effect depend on the app (prodready fix --all applies them; prodready check shows them)\n", plural.Count(startingPoints, "starting-point fix", "starting-point fixes"))
	}
	return ExitOK
}

// fixSummary is fix's last line: how many findings were fixed (or, with
// wouldFix, would be) in how many files, then the fixes that could not be
// applied, the findings without one, and the fixes of charts and overlays
// to make by hand (byHand), when there are any.
func fixSummary(wouldFix bool, fixed, files, failed, noFix, byHand int) string {
	verb := "fixed"
	if wouldFix {
		verb = "would fix"
	}
	var b strings.Builder
	if fixed == 0 {
		b.WriteString("nothing to fix")
	} else {
		fmt.Fprintf(&b, "%s %s in %s", verb, plural.Count(fixed, "finding", "findings"), plural.Count(files, "file", "files"))
	}
	if failed > 0 {
		fmt.Fprintf(&b, "; %s could not be applied", plural.Count(failed, "fix", "fixes"))
	}
	if noFix > 0 {
		fmt.Fprintf(&b, "; %s no automatic fix (see `prodready check`)", plural.Count(noFix, "finding has", "findings have"))
	}
	if byHand > 0 {
		fmt.Fprintf(&b, "; %s to make by hand (no values key or literal line of %s chart or overlay takes %s; `prodready fix --dry-run` lists %s)",
			plural.Count(byHand, "fix", "fixes"), plural.Form(byHand, "its", "their"), plural.Form(byHand, "it", "them"), plural.Form(byHand, "it", "them"))
	}
	return b.String()
}

// fixedOnce returns the fixed findings fs with one for each file, line,
// rule and fix: a base line's fix that several overlays' findings carry
// is one edit, applied once. (A fix round keeps no messages, which
// rendered.MergeRenders would compare.)
func fixedOnce(fs []checks.Finding) []checks.Finding {
	type key struct {
		file       string
		line       int
		rule, what string
	}
	seen := map[key]bool{}
	var out []checks.Finding
	for _, f := range fs {
		k := key{f.File, f.Line, f.RuleID, f.Fix.Description}
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// withheldFix reports whether f's fix, one keep lets fix apply, was
// withheld, with a reason to say.
func withheldFix(f checks.Finding, keep func(checks.Finding) bool) bool {
	return f.Fix != nil && f.Fix.Withheld != "" && keep(f)
}

// keepVerifyRenders returns render with cache in front of the renders that
// verify fixes (rendered.Options.StreamOnly: a stream, no source maps),
// which a later round may ask for again. A round's render of the whole
// folder is not kept: the next round asks for it again only when this one
// changed none of the files it reads, and keeping it encodes every
// document's source map (on the corpus's 50 charts a third of fix's peak
// memory and a sixth of its CPU, for no render saved). The overlays' builds
// are kept by their own inputs (rendered.FixMemo.Builds), not here.
func keepVerifyRenders(cache *rendercache.Cache, render rendered.Renderer) rendered.Renderer {
	kept := cache.Wrap(render)
	return func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
		if opts.StreamOnly {
			return kept(ctx, files, opts)
		}
		return render(ctx, files, opts)
	}
}

// fixRenderCacheBytes bounds the renders fix keeps (encoded): argo-cd's HA
// overlays encode to a few MiB each.
const fixRenderCacheBytes = 128 << 20

func writeKeepingMode(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, info.Mode().Perm())
}

// fixRound checks the inputs as fixed so far, with the charts among paths
// rendered from that text as check renders them (values.yaml only: the
// fixes edit it). A finding of a chart whose fix is an edit of a values
// file that rendering again shows right (rendered.VerifyFixes) carries
// that edit; the chart's other findings carry none, so its templates are
// left as they are. Kustomize overlays are not built: their bases and
// patches are fixed as written, as before charts were rendered, since a
// finding mapped to them would carry no edit.
func fixRound(cur []checks.Input, paths []string, cfg *checks.Config, render rendered.Renderer, memo *rendered.FixMemo, emit func([]checks.Finding)) {
	scan.FixRoundStream(context.Background(), cur, readFolders(cur, paths, false), cfg, render, memo, emit)
}

// readAll reads the inputs that are read lazily.
func readAll(inputs []checks.Input) ([]checks.Input, error) {
	out := slices.Clone(inputs)
	for i, in := range out {
		if in.Data == nil && in.Read != nil {
			data, err := in.Read(nil)
			if err != nil {
				return nil, err
			}
			out[i] = checks.Input{Path: in.Path, Data: data, Context: in.Context}
		}
	}
	return out, nil
}
