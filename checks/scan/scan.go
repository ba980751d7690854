// Package scan is one scan of a set of files, the same for every caller:
// it renders the charts and overlays among them, runs the rules over the
// files and the renders, maps each finding of a rendered object back to
// the line its author edits, gives render findings the config's
// severities, and says which files went unchecked and why. The check
// command and the GitHub Action's whole-tree modes (SARIF, annotations of
// a push) scan with Run, streaming; a review (in serve, in the Action's
// pull-request mode and in prodready review) scans head and base with
// Collect; prodready fix and the bot's fix commits scan each round with
// FixRound.
package scan

import (
	"context"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
)

// Options say how one scan runs.
type Options struct {
	// Render renders the charts and overlays of the folders; nil reports
	// each as not rendered.
	Render rendered.Renderer
	// Render options (Kubernetes version, values sets) beyond the
	// config's: rendered.ConfigOptions(cfg) when zero.
	RenderOptions *rendered.Options
	// Check are the options of the rules' run; its Emit is set by Run.
	Check checks.Options
	// VerifyFixes makes a chart finding whose fix is an edit of a values
	// file (or of a template's literal lines) carry that edit once
	// rendering the chart again with it shows it right
	// (rendered.Prepared.VerifyFixes); Memo carries what one round learnt
	// to the next.
	VerifyFixes bool
	Memo        *rendered.FixMemo
	// Renders, for Collect, says which renders' findings are kept (a
	// review keeps those of the charts and overlays its pull request
	// affects); nil keeps all.
	Renders func(*rendered.Render) bool
	// NamedRenders is how many renders a finding several of them make
	// at one line names once merged (rendered.MergeRenders: a review
	// comment names a few and counts the rest); 0 names them all.
	NamedRenders int
}

// Outcome is what a scan found besides the findings it emitted.
type Outcome struct {
	// Result is the rules' run over the files and the renders.
	Result *checks.Result
	// NotRendered are the files of charts and overlays that became no
	// object, with why.
	NotRendered []rendered.Skipped
	// Renders is how many renders were made.
	Renders int
}

// Run scans inputs, whose charts and overlays are in folders (read with
// rendered.ReadFolders or given whole), with cfg, and hands every finding
// to emit: a file's findings together, in line order, those of files no
// render touches as soon as the file is done, in path order, and after
// them those of the charts' and overlays' files, sorted by file (byFile):
// render problems, the rules' findings mapped to their source lines,
// those on files several renders read (a base under several overlays),
// each once with the renders that have it (rendered.MergeRenders), and
// findings of renders that fell in no checked file. Findings of several
// objects that one line makes for the same reason name their objects
// (rendered.NameObjects).
func Run(ctx context.Context, inputs []checks.Input, folders []rendered.Folder, cfg *checks.Config, o Options, emit func([]checks.Finding)) Outcome {
	prep := Prepare(ctx, inputs, folders, cfg, o)
	if prep.Renders > 0 && o.Check.PaceGC {
		// The folders' files and the renderer's buffers are garbage now:
		// collecting them before a run that paces its collector keeps them
		// from setting the heap's first goal (29 MB of files on the
		// corpus's charts, 35 MiB less at the peak).
		runtime.GC()
	}
	out := &byFile{prep: prep, emit: emit}
	out.hold(prep.Problems)
	// Before the run: its findings of a chart name the values sets that
	// have them when not all do.
	prep.CheckValuesSets(cfg)
	co := o.Check
	// Findings on a file several renders read (a base under several
	// overlays) wait for the last of them, and are merged into one naming
	// the renders that have it, as a review comments once.
	var shared []checks.Finding
	co.Emit = func(fs []checks.Finding) {
		fromRender := slices.ContainsFunc(fs, func(f checks.Finding) bool {
			_, ok := prep.RenderOf(f.File)
			return ok
		})
		mapped := prep.Map(fs)
		now := mapped[:0]
		for _, f := range mapped {
			if prep.Shared(f.File) {
				shared = append(shared, f)
			} else {
				now = append(now, f)
			}
		}
		rendered.NameObjects(now)
		out.add(now, fromRender)
	}
	res := checks.Run(prep.Inputs, cfg, co)
	res.Unchecked = prep.MapUnchecked(res.Unchecked)
	res.Exempted = prep.MapExempted(res.Exempted)
	shared = rendered.MergeRenders(shared, o.NamedRenders)
	rendered.NameObjects(shared)
	out.hold(shared)
	out.hold(prep.Unreported())
	out.close()
	return Outcome{Result: res, NotRendered: prep.Skipped, Renders: prep.Renders}
}

// Collected is what Collect found.
type Collected struct {
	// Plain are the findings of the files checked as written.
	Plain []checks.Finding
	// Lean holds Plain instead, when Options.Check.LeanFindings asks for
	// it and there are no folders to render (checks.LeanFindings).
	Lean *checks.LeanFindings
	// Rendered are the findings of the renders Options.Renders keeps,
	// mapped to the lines their authors edit, those several renders make
	// at one line merged (rendered.MergeRenders), those of several objects
	// at one line naming their objects (rendered.NameObjects).
	Rendered []checks.Finding
	// Problems are the render problems, graded by the config.
	Problems []checks.Finding
	// Unreported are findings of a chart that only some of its values
	// sets have, reported at no render's line (Prepared.Unreported).
	Unreported []checks.Finding
	// Result is the rules' run, without its findings (they are Plain and
	// Rendered); its Silenced are moved to the lines the
	// ignores were written on (a template, values file, base or patch),
	// with the findings ignores in sources silenced before the run, and
	// what its rules could not check (Unchecked) to the lines authors edit.
	Result *checks.Result
	// NotRendered are the files of charts and overlays that became no
	// object, with why.
	NotRendered []rendered.Skipped
}

// Collect scans like Run for a caller that needs every finding at once and
// which of them a render made: a review, which compares two scans. It does
// not stream (o.Check.Emit is ignored), so Result.Files keep their objects
// (a review caches their parses). Findings of renders o.Renders does not
// keep are dropped before they are mapped.
func Collect(ctx context.Context, inputs []checks.Input, folders []rendered.Folder, cfg *checks.Config, o Options) Collected {
	prep := Prepare(ctx, inputs, folders, cfg, o)
	prep.CheckValuesSets(cfg)
	co := o.Check
	co.Emit = nil
	// Without folders every finding is plain: handed over lean, as the
	// run holds them.
	co.LeanFindings = co.LeanFindings && len(folders) == 0
	res := checks.Run(prep.Inputs, cfg, co)
	out := Collected{Problems: prep.Problems, NotRendered: prep.Skipped, Result: res, Lean: res.Lean}
	res.Lean = nil
	// The plain findings stay where the run put them, in its order, moved
	// down over those of renders in place: appended one by one to a slice
	// of their own, a review's 22,000 findings on 10,000 objects (4.6 MB)
	// were copied about five times over as that slice grew.
	var fromRenders []checks.Finding
	plain := res.Findings[:0]
	for _, f := range res.Findings {
		r, ok := prep.RenderOf(f.File)
		switch {
		case !ok:
			plain = append(plain, f)
		case o.Renders == nil || o.Renders(r):
			fromRenders = append(fromRenders, f)
		}
	}
	clear(res.Findings[len(plain):])
	out.Plain, res.Findings = plain, nil
	out.Rendered = rendered.MergeRenders(prep.Map(fromRenders), o.NamedRenders)
	rendered.NameObjects(out.Rendered)
	res.Silenced = append(prep.MapSilenced(res.Silenced), prep.Silenced()...)
	res.Unchecked = prep.MapUnchecked(res.Unchecked)
	res.Exempted = prep.MapExempted(res.Exempted)
	out.Unreported = prep.Unreported()
	return out
}

// Prepare renders the charts and root kustomizations of folders and
// returns the inputs to check, with the render problems graded by cfg
// (render-failed gets the config's severity for the rule; the findings of
// a rule the config switches off, kustomize-patch-unmatched, are left out).
func Prepare(ctx context.Context, inputs []checks.Input, folders []rendered.Folder, cfg *checks.Config, o Options) *rendered.Prepared {
	if len(folders) == 0 || !rendered.HasRoots(inputs) {
		return &rendered.Prepared{Inputs: inputs}
	}
	render := o.Render
	if render == nil {
		render = func(context.Context, rendered.Files, rendered.Options) (rendered.Result, error) {
			return rendered.Result{}, errNoRenderer
		}
	}
	ropts := rendered.ConfigOptions(cfg)
	if o.RenderOptions != nil {
		ropts = *o.RenderOptions
	}
	prep := rendered.Prepare(ctx, inputs, folders, render, ropts)
	prep.Problems = slices.DeleteFunc(prep.Problems, func(f checks.Finding) bool {
		r := cfg.Catalog().Lookup(f.RuleID) // a patch that selects nothing: off when the config says
		return r != nil && !cfg.Enabled(r)
	})
	for i := range prep.Problems {
		if s := cfg.SeverityOf(prep.Problems[i].RuleID); s != 0 {
			prep.Problems[i].Severity = s
		}
	}
	if o.VerifyFixes {
		prep.VerifyFixes(ctx, cfg, folders, o.Memo)
	} else {
		// A claim about what a chart renders once a fix is applied is
		// checked by rendering it with the fix, in every scan.
		prep.VerifyClaims(ctx, cfg, folders)
	}
	return prep
}

// FixRound checks inputs, the text as fixed so far, for one round of
// fixes: the charts of folders are rendered from that text with their
// values.yaml alone (the fixes edit it) and the overlays built; a chart
// finding whose fix rendering again shows right carries it as an edit of
// the values file or of the template's literal lines, an overlay's as an
// edit of the patch or base that sets the field (memo carries what earlier
// rounds learnt). The
// render problems come first, graded by cfg. prodready fix and the bot's
// fix commits run their rounds through it.
func FixRound(ctx context.Context, inputs []checks.Input, folders []rendered.Folder, cfg *checks.Config, render rendered.Renderer, memo *rendered.FixMemo) []checks.Finding {
	// A lean run consumes its inputs, so it gets a copy.
	inputs = append([]checks.Input(nil), inputs...)
	ropts := rendered.ConfigOptions(cfg)
	ropts.ValuesYAMLOnly = true
	if memo != nil {
		ropts.Builds = memo.Builds
	}
	prep := Prepare(ctx, inputs, folders, cfg, Options{Render: render, RenderOptions: &ropts, VerifyFixes: true, Memo: memo})
	res := checks.Run(prep.Inputs, cfg, checks.Options{Memory: checks.Lean})
	return append(prep.Problems, prep.Map(res.Findings)...)
}

// FixRoundStream is FixRound for fix.ConvergeStream: it hands the round's
// findings to emit a file's together, files in path order. Without folders
// (nothing to render) the run streams (checks.Options.Emit), so it never
// holds every finding of the round; with them the findings are FixRound's,
// grouped by file in a stable order, so each file's keep FixRound's order.
func FixRoundStream(ctx context.Context, inputs []checks.Input, folders []rendered.Folder, cfg *checks.Config, render rendered.Renderer, memo *rendered.FixMemo, emit func([]checks.Finding)) {
	if len(folders) == 0 {
		// A lean run consumes its inputs, so it gets a copy.
		inputs = append([]checks.Input(nil), inputs...)
		checks.Run(inputs, cfg, checks.Options{Memory: checks.Lean, Emit: emit})
		return
	}
	fs := FixRound(ctx, inputs, folders, cfg, render, memo)
	slices.SortStableFunc(fs, func(a, b checks.Finding) int { return strings.Compare(path.Clean(a.File), path.Clean(b.File)) })
	emit(fs)
}

type noRenderer struct{}

func (noRenderer) Error() string { return "this run does not render charts or overlays" }

var errNoRenderer error = noRenderer{}
