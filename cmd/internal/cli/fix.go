package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/rendered"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/fix"
)

// ruleList is a repeatable, comma-separated --rule flag.
type ruleList map[string]bool

func (r ruleList) String() string { return "" }

func (r ruleList) Set(v string) error {
	for _, id := range strings.Split(v, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if catalog.Default().Lookup(id) == nil {
			return fmt.Errorf("unknown rule %q (see `prodready rules`)", id)
		}
		r[id] = true
	}
	return nil
}

// runFix is the fix command; render renders the charts and overlays among
// the paths, so that their findings' fixes are edits of the values files
// (see fixRound).
func runFix(render rendered.Renderer, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "config file (default: .prodready.yaml at the root of the first folder)")
	rules := ruleList{}
	fs.Var(rules, "rule", "fix only these rules (comma-separated, repeatable)")
	showDiff := fs.Bool("diff", false, "print a unified diff instead of writing files")
	dryRun := fs.Bool("dry-run", false, "say what would be fixed, write nothing")
	all := fs.Bool("all", false, "apply starting-point fixes too (resource sizes, UIDs, replica counts…: check them against the app); by default only exact fixes are applied, unless --rule names the rules")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: prodready fix [flags] [paths… | -]")
		fs.PrintDefaults()
	}
	paths, err := ParseFlags(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	cfg, inputs, err := loadInputs(*configPath, paths, stdin, false)
	if err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	// Exact fixes only, unless --all, or --rule names what to fix. The
	// starting points left are those of the last round's check.
	var startingPoints int
	keep := func(f checks.Finding) bool {
		if len(rules) > 0 {
			return rules[f.RuleID]
		}
		if !*all && f.Fixable() && !f.ExactFix() {
			startingPoints++
			return false
		}
		return true
	}
	memo := &rendered.FixMemo{} // a chart fix found wrong in one round is not rendered again
	fixed, outcome := fix.ConvergeWith(inputs, func(cur []checks.Input) []checks.Finding {
		startingPoints = 0
		return fixRound(cur, paths, cfg, render, memo)
	}, keep)
	files := 0
	for k, in := range inputs {
		out := fixed[k].Data
		if string(out) == string(in.Data) {
			continue
		}
		files++
		switch {
		case *showDiff:
			writeDiff(stdout, in.Path, in.Data, out)
		case *dryRun:
			// listed below
		case in.Path == "<stdin>":
			stdout.Write(out)
		default:
			if err := writeKeepingMode(in.Path, out); err != nil {
				fmt.Fprintln(stderr, "prodready:", err)
				return ExitUsage
			}
		}
	}
	if *dryRun {
		for _, f := range outcome.Fixed {
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
	noFix := 0
	for _, f := range outcome.Remaining {
		if !f.Fixable() {
			noFix++
		}
	}
	verb := "fixed"
	if *showDiff || *dryRun {
		verb = "would fix"
	}
	fmt.Fprintf(stderr, "%s %d findings in %d files; %d could not be applied; %d findings have no automatic fix (see `prodready check`)\n", verb, len(outcome.Fixed), files, len(outcome.Failed), noFix)
	if startingPoints > 0 {
		fmt.Fprintf(stderr, "%d starting-point fixes not applied: their values depend on the app (prodready fix --all applies them; prodready check shows them)\n", startingPoints)
	}
	return ExitOK
}

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
func fixRound(cur []checks.Input, paths []string, cfg *checks.Config, render rendered.Renderer, memo *rendered.FixMemo) []checks.Finding {
	// A lean run consumes its inputs, so it gets a copy.
	inputs := append([]checks.Input(nil), cur...)
	opts := rendered.ConfigOptions(cfg)
	opts.ValuesYAMLOnly = true
	prep, folders := prepareRenders(inputs, paths, cfg, render, opts, true)
	prep.VerifyFixes(context.Background(), cfg, folders, memo)
	res := checks.Run(prep.Inputs, cfg, checks.Options{Memory: checks.Lean})
	return append(prep.Problems, prep.Map(res.Findings)...)
}
