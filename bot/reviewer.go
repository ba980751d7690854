package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/checks/scan"
)

// failTimeout bounds the call that ends a check run after an error, even
// when the job's context is already cancelled.
const failTimeout = 30 * time.Second

// Reviewer runs one review: config at base, changed files, manifests at
// head, checks.Run, placement on the diff, and publication through a Host.
// It knows no host: GitHub and GitLab adapters plug in through Host.
type Reviewer struct {
	// Cache keeps manifest contents by blob SHA across pushes; when it is a
	// ParsedCache (LRUCache is), it keeps them parsed too.
	Cache BlobCache
	// Suggest turns findings of one file into line replacements (the
	// ```suggestion blocks); indexes in Suggestion.Findings refer to fs.
	// Suggestions naming the same findings are parts of one fix. NewReviewer
	// sets SuggestFixes (package fix); nil means comments carry no
	// suggestion.
	Suggest func(path string, src []byte, fs []checks.Finding) ([]Suggestion, error)
	// Logger receives the job's log lines (slog.Default when nil).
	Logger *slog.Logger
	// Render renders the Helm charts and kustomize overlays a pull request
	// touches, at head (a render worker in a child process in serve). Nil: nothing is
	// rendered, and templates are not checked. A func, not an import of
	// checks/render, so the lean CLI that links this package carries no
	// Helm or kustomize.
	Render rendered.Renderer
	// RememberFindings keeps, when Cache is an LRUCache, the rules'
	// findings on each cached object beside its parse (checks.Memo), so a
	// later run recalls those of the rules that read only that object.
	// NewReviewer sets it.
	RememberFindings bool
}

// NewReviewer returns a Reviewer that caches blobs in cache (which may be
// nil: then nothing is cached) and logs to logger.
func NewReviewer(cache BlobCache, logger *slog.Logger) *Reviewer {
	if logger == nil {
		logger = slog.Default()
	}
	return &Reviewer{Cache: cache, Logger: logger, Suggest: SuggestFixes, RememberFindings: true}
}

type loggerKey struct{}

// WithLogger returns ctx carrying l, so that hosts log with the job's
// delivery id, repository and PR number.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// LoggerFrom returns the logger WithLogger put in ctx, or slog.Default.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// JobLogger returns logger with the attributes every log line of job carries.
func JobLogger(logger *slog.Logger, job Job) *slog.Logger {
	return logger.With("delivery", job.DeliveryID, "event", job.Event, "repo", job.PR.Repo, "pr", job.PR.Number)
}

// Run reviews job.PR through job.Host; it is the worker pool's handler.
func (rv *Reviewer) Run(ctx context.Context, job Job) error {
	if job.Host == nil {
		return errors.New("job has no host")
	}
	log := JobLogger(rv.logger(), job)
	ctx = WithLogger(ctx, log)
	start := time.Now()
	err := rv.Review(ctx, job.Host, job.PR)
	if err != nil {
		log.Error("review failed", "err", err.Error(), "seconds", time.Since(start).Seconds())
		return err
	}
	log.Info("review done", "seconds", time.Since(start).Seconds())
	return nil
}

func (rv *Reviewer) logger() *slog.Logger {
	if rv.Logger != nil {
		return rv.Logger
	}
	return slog.Default()
}

// Review runs the whole review of pr: it starts it on the host at once,
// prepares it and publishes it. Any error after the start ends the host's
// review with a message (never leaving a check run in progress). A draft is
// reviewed only when the config at base says review.drafts: true.
func (rv *Reviewer) Review(ctx context.Context, host Host, pr PullRequest) error {
	log := LoggerFrom(ctx)
	var cfg *checks.Config
	if pr.Draft {
		c, err := LoadConfig(ctx, host, pr)
		if err == nil && !c.Review.Drafts {
			log.Info("draft pull request not reviewed (review.drafts is false)")
			return nil
		}
		cfg = c // on error, Prepare reads it again and reports it
	}
	h, err := host.StartReview(ctx, pr)
	if err != nil {
		return fmt.Errorf("starting review: %w", err)
	}
	r, err := rv.safePrepare(ctx, host, pr, cfg)
	if err == nil {
		err = host.Publish(ctx, pr, h, r)
		if err != nil {
			err = fmt.Errorf("publishing review: %w", err)
		}
	}
	if err != nil {
		msg := "prodready could not finish this review: " + err.Error()
		if ctx.Err() != nil {
			msg = "The review was interrupted (the server is shutting down or the job ran out of time). Re-run this check to review again."
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), failTimeout)
		defer cancel()
		if ferr := host.Fail(fctx, pr, h, msg); ferr != nil {
			return errors.Join(err, fmt.Errorf("ending review after error: %w", ferr))
		}
		return err
	}
	return nil
}

// safePrepare is Prepare with a panic (a bug, e.g. in a suggestion) turned
// into an error, so the check run is still ended.
func (rv *Reviewer) safePrepare(ctx context.Context, host Host, pr PullRequest, cfg *checks.Config) (r Review, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error (please report it): %v", p)
		}
	}()
	return rv.Prepare(ctx, host, pr, cfg)
}

// configNamer is a Host whose config is another file than .prodready.yaml
// (the Action's config input): the errors of the config name that file.
type configNamer interface {
	// ConfigName is the config file's path in the repository.
	ConfigName() string
}

// LoadConfig reads .prodready.yaml at the pull request's base commit (a
// pull request cannot switch off its own checks); no file means defaults.
// It parses the config as prodready check does (checks.ParseConfigFile):
// the errors name the file, the line and the key.
func LoadConfig(ctx context.Context, host Host, pr PullRequest) (*checks.Config, error) {
	ref := pr.BaseSHA
	if ref == "" {
		ref = pr.BaseRef
	}
	name := checks.ConfigFileName
	if n, ok := As[configNamer](host); ok && n.ConfigName() != "" {
		name = n.ConfigName()
	}
	data, err := host.ReadFile(ctx, pr, ref, checks.ConfigFileName)
	if err != nil {
		return nil, fmt.Errorf("reading %s at base %s: %w", name, short(ref), err)
	}
	if data == nil {
		return checks.DefaultConfig(catalog.Default()), nil
	}
	cfg, err := checks.ParseConfigFile(name, data, catalog.Default())
	if err != nil {
		return nil, fmt.Errorf("%w (at base %s)", err, short(ref))
	}
	return cfg, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// runOutput is what a review's run found.
type runOutput struct {
	// findings are the plain findings and those of affected renders,
	// mapped to the lines authors edit; in a kept run (kept), held in
	// table instead, without their fixes; in a head's run without
	// renders, held in lean instead, where the run found them.
	findings []checks.Finding
	table    *checks.FindingTable
	lean     *checks.LeanFindings
	// fromRender holds the fingerprints of the findings of renders.
	fromRender map[string]bool
	// problems are the render-failed findings of the affected charts and
	// overlays.
	problems []checks.Finding
	// unreadable are the yaml-invalid findings of changed files the host
	// could not give (unreadableFinding). At head they are always new: a
	// base that could not be read either does not make the head's content
	// checked.
	unreadable []checks.Finding
	res        *checks.Result
	skipped    []report.NotChecked
	// namespaces maps each namespace to the paths holding an object of it
	// (namespacePaths).
	namespaces map[string]map[string]bool
	// ids are the identities of a base's findings, made once (a kept run
	// is shared by the reviews that compare with it).
	ids *runIdentities
}

// runIdentities are the identities of a run's findings, made once.
type runIdentities struct {
	once sync.Once
	// found maps the fingerprint of each finding and problem, as a key
	// (checks.KeyOfFingerprint), to its index in findings, then problems
	// (nth); silenced holds the fingerprints of the findings ignores
	// silenced. By key, a kept run's identities held about 14 MB at
	// 50,000 objects, by text; a fingerprint that makes no key (none does)
	// is in foundText.
	found     map[uint64]int
	foundText map[string]int
	silenced  map[string]bool
	// merged maps the key of each object a finding stands for besides its
	// own (checks.Finding.Merged) to that finding's index and the object.
	merged map[uint64]mergedAt
}

// mergedAt is a finding's index in a run and one object it stands for
// besides its own.
type mergedAt struct {
	index  int
	object checks.ObjectRef
}

// allAt reports whether each of keys, keys of one finding (its own, those
// of the objects it stands for besides), is among ids, as a finding's
// own or as an object one stands for, and marks the ones found: their
// index in atHead, the others in atHeadMerged.
func (ids *runIdentities) allAt(keys []uint64, atHead []bool, atHeadMerged map[uint64]bool) bool {
	all := true
	for _, k := range keys {
		if j, ok := ids.found[k]; ok {
			atHead[j] = true
		} else if _, ok := ids.merged[k]; ok {
			atHeadMerged[k] = true
		} else {
			all = false
		}
	}
	return all
}

// find returns the index identities gives fingerprint fp, if any.
func (ids *runIdentities) find(fp string) (int, bool) {
	if k, ok := checks.KeyOfFingerprint(fp); ok {
		i, found := ids.found[k]
		return i, found
	}
	i, found := ids.foundText[fp]
	return i, found
}

// findKey is find of the fingerprint whose key is k.
func (ids *runIdentities) findKey(k uint64) (int, bool) {
	i, found := ids.found[k]
	return i, found
}

// identities returns the identities of o's findings.
func (o *runOutput) identities() *runIdentities {
	ids := o.ids
	if ids == nil {
		ids = &runIdentities{} // not kept: made for this review alone
		o.ids = ids
	}
	ids.once.Do(func() {
		n := o.count()
		ids.found = make(map[uint64]int, n+len(o.problems))
		add := func(fp string, i int) {
			if k, ok := checks.KeyOfFingerprint(fp); ok {
				ids.found[k] = i
				return
			}
			if ids.foundText == nil {
				ids.foundText = map[string]int{}
			}
			ids.foundText[fp] = i
		}
		for i := 0; i < n; i++ {
			f := o.finding(i)
			add(f.Fingerprint(), i)
			for m, k := range f.MergedKeys() {
				if ids.merged == nil {
					ids.merged = map[uint64]mergedAt{}
				}
				ids.merged[k] = mergedAt{i, f.Merged[m]}
			}
		}
		for i := range o.problems {
			add(o.problems[i].Fingerprint(), n+i)
		}
		ids.silenced = map[string]bool{}
		if o.res != nil {
			for _, s := range o.res.Silenced {
				ids.silenced[s.Finding.Fingerprint()] = true
			}
		}
	})
	return ids
}

// nth is the finding identities().found indexes by i.
func (o *runOutput) nth(i int) checks.Finding {
	if n := o.count(); i >= n {
		return o.problems[i-n]
	}
	return o.finding(i)
}

// count is how many findings o holds (not its problems).
func (o *runOutput) count() int {
	switch {
	case o.table != nil:
		return o.table.Len()
	case o.lean != nil:
		return o.lean.Len()
	}
	return len(o.findings)
}

// finding is o's finding i.
func (o *runOutput) finding(i int) checks.Finding {
	switch {
	case o.table != nil:
		return o.table.At(i)
	case o.lean != nil:
		return o.lean.At(i)
	}
	return o.findings[i]
}

// all returns o's findings (not its problems) as one list: findings
// itself, or a copy of those table or lean hold.
func (o *runOutput) all() []checks.Finding {
	if o.table == nil && o.lean == nil {
		return o.findings
	}
	out := make([]checks.Finding, o.count())
	for i := range out {
		out[i] = o.finding(i)
	}
	return out
}

// notChecked lists the files the pull request changes that were read but
// not checked (a template of a chart not rendered, a file over the size
// limit), and the files of the affected renders that became no object or
// were not loaded, sorted by path.
func (o runOutput) notChecked(changed map[string]string) []report.NotChecked {
	var out []report.NotChecked
	for _, n := range report.NotCheckedOf(o.res) {
		if _, ok := changed[n.Path]; ok {
			out = append(out, n)
		}
	}
	out = append(out, o.skipped...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	seen := map[string]bool{}
	uniq := out[:0]
	for _, n := range out {
		if !seen[n.Path] {
			seen[n.Path] = true
			uniq = append(uniq, n)
		}
	}
	return uniq
}

// run checks the manifests of files the config checks, with the charts and
// overlays the pull request affects rendered (when the Reviewer has a
// renderer): their objects are checked in place of their templates, bases
// and patches, and their findings mapped to the lines authors edit;
// findings of other renders are dropped. It takes from the cache, when it
// is a ParsedCache, every file whose blob was parsed before with the same
// limits, and keeps there the ones the run parses.
//
// With reuse, and a cache that keeps results (LRUCache), a run of the same
// inputs (the same files, by blob, read the same way, with the same config
// and renders) is the one the cache holds from before, if any, and this
// run is kept there: a review keeps its base's run, which every push of a
// pull request, and every pull request on that base, shares.
func (rv *Reviewer) run(ctx context.Context, plan *renderPlan, files []File, cfg *checks.Config, reuse bool) runOutput {
	lim := cfg.ParseLimits()
	pc, _ := rv.Cache.(ParsedCache)
	lc, _ := rv.Cache.(*LRUCache)
	var since uint64 // the cache's tick before this run's reads of it
	if lc != nil {
		since = lc.Tick()
	}
	var memo *runMemo
	config := configKey(cfg)
	// path -> blob SHA, of the files the cache keeps; sized once (grown by
	// doubling it was 3.5 MB of a push at 50,000 objects)
	shas := make(map[string]string, len(files))
	if lc != nil && config != "" && rv.RememberFindings {
		memo = newRunMemo(lc, config, shas)
	}
	inputs := make([]checks.Input, 0, len(files))
	miss := map[string]string{} // path -> blob SHA, parsed by this run
	var unreadable []report.NotChecked
	var unreadFindings []checks.Finding
	// The readable files: the list itself when all are, not a copy (the
	// base's run and the head's would make one at every push).
	unread := func(f File) bool { return f.Unreadable != "" || f.Skipped != "" }
	kept := files
	if slices.ContainsFunc(files, unread) {
		kept = slices.DeleteFunc(slices.Clone(files), unread)
	}
	for _, f := range files {
		if f.Skipped != "" {
			// Named where the pull request touches it; the repository's
			// other links are not said again at every review.
			if plan.changes(f.Path) {
				unreadable = append(unreadable, report.NotChecked{Path: f.Path, Reason: f.Skipped})
			}
			continue
		}
		if f.Unreadable == "" {
			continue
		}
		if fd, ok := unreadableFinding(cfg, plan, f); ok {
			unreadFindings = append(unreadFindings, fd)
			continue
		}
		unreadable = append(unreadable, report.NotChecked{Path: f.Path, Reason: "could not be read: " + f.Unreadable})
	}
	files = kept
	// The renders and the key of the run's inputs first: a push's base
	// run is most often the one the cache keeps, and taking the parses
	// and the memo's findings of every file first (a lock and lookups
	// each) was some 20-40 ms of a push's wall time at 50,000 objects.
	var folders []rendered.Folder
	if rv.Render != nil {
		if folder, ok := plan.folder(files); ok {
			folders = []rendered.Folder{folder}
		}
	}
	var key string
	if reuse && lc != nil && config != "" {
		key = rv.resultKey(config, plan, files, len(folders) > 0)
		if kept, ok := lc.GetResult(key); ok {
			LoggerFrom(ctx).Info("base run reused from the cache", "files", len(files))
			return *kept
		}
	}
	for _, f := range files {
		checked := rv.Render == nil && cfg.Wants(f.Path) || rv.Render != nil && plan.plain[f.Path]
		crd := !checked && cfg.CRDFile(f.Path) // read for its CRDs only
		if !checked && !crd {
			continue // loaded for a render only
		}
		in := checks.Input{Path: f.Path, Data: f.Data, Context: crd}
		if pc != nil && f.SHA != "" {
			shas[f.Path] = f.SHA
			if pf, ok := pc.GetParsed(f.Path, f.SHA, lim); ok {
				in.Parsed = pf
				// A file the pull request changes is checked again at
				// head: its findings' fixes become suggestions, and the
				// memo keeps none (runMemo.lean).
				if memo != nil && (reuse || !plan.changes(f.Path)) {
					memo.recall(pf, f.SHA, lim)
				}
			} else {
				miss[f.Path] = f.SHA
			}
		}
		inputs = append(inputs, in)
	}
	out := runOutput{skipped: unreadable, unreadable: unreadFindings}
	opts := scan.Options{NamedRenders: maxNamedRenders}
	if pc != nil {
		// Packed (pointer-free node arrays, a tree inflated only while
		// its rules run), a cached file holds about half the memory, so
		// the cache keeps about twice as many files; the rules run as fast
		// on them (BenchmarkRulesCorpus, within noise). Each document is
		// packed as soon as it is parsed.
		opts.Check.Memory = checks.PackTrees
	}
	if rv.Render != nil {
		if len(folders) > 0 {
			// A fix of a key a values file feeds becomes a suggestion on
			// the values line once rendering again shows it right.
			opts.Render, opts.VerifyFixes, opts.Renders = rv.Render, true, plan.affected
		}
		for _, n := range plan.notLoaded {
			out.skipped = append(out.skipped, report.NotChecked{Path: n, Reason: notLoadedReason})
		}
	}
	if memo != nil {
		opts.Check.Memo = memo
	}
	// A base's findings are only compared by identity and listed as fixed
	// without a fix (withoutFix): its run lets their fixes go as it goes.
	// Not when it renders, whose findings' fixes are mapped and verified.
	opts.Check.NoFixes = reuse && len(folders) == 0
	// A head's findings are read where the run found them, most of a
	// push's in the memo, and made Findings only where the review
	// reports them (assemble); a kept run's become a table instead.
	opts.Check.LeanFindings = !reuse
	scanned := scan.Collect(ctx, inputs, folders, cfg, opts)
	res := scanned.Result
	out.res = res
	// Render problems and files that became no object are the review's
	// when they belong to an affected chart or overlay.
	for _, f := range scanned.Problems {
		if f.File = plan.problemFile(f.File); plan.owns(f.File) {
			out.problems = append(out.problems, f)
		}
	}
	for _, s := range scanned.NotRendered {
		// A component no affected overlay uses is named only when the
		// pull request changes it: the overlays that use it are not
		// affected, and a review is about what the pull request changes.
		if plan.owns(s.File) && (s.Reason != rendered.UnusedComponent || plan.changes(s.File)) {
			out.skipped = append(out.skipped, report.NotChecked{Path: s.File, Reason: s.Reason})
		}
	}
	if pc != nil {
		var cached []*manifest.File
		for _, mf := range res.Files {
			if sha, ok := miss[mf.Path]; ok {
				pc.PutParsed(sha, mf, lim)
			}
			if sha, ok := shas[mf.Path]; ok {
				cached = append(cached, mf)
				if memo != nil {
					memo.keep(mf, sha, lim)
				}
			}
		}
		// The next run recalls most of their objects' findings and
		// decodes again the few typed values its rules read.
		checks.DropTypedValues(cached)
	}
	out.namespaces = namespacePaths(res)
	marked := scanned.Rendered
	for _, f := range scanned.Unreported {
		if plan.owns(f.File) {
			marked = append(marked, f) // only other values sets of an affected chart have it
		}
	}
	marked = rendered.MergeRenders(marked, maxNamedRenders)
	plain := scanned.Plain
	if scanned.Lean != nil {
		if len(marked) == 0 {
			out.lean = scanned.Lean
		} else {
			plain = scanned.Lean.All() // merged with the renders' (a lean scan has none)
		}
	}
	var rendered []bool // which of out.findings came from a render
	out.findings, rendered = mergeFindings(marked, plain)
	// The file is no part of a finding's identity: the same object in two
	// files (two renders, two overlays) is told apart across the review.
	checks.NumberOccurrences(out.findings)
	out.lean.NumberOccurrences()
	checks.NumberOccurrences(out.problems)
	out.fromRender = map[string]bool{}
	for i, r := range rendered {
		if r {
			out.fromRender[out.findings[i].Fingerprint()] = true
		}
	}
	if key != "" {
		out.ids = &runIdentities{} // shared with the kept run, made once
		if kept := lc.PutResult(key, &out, since); kept != nil {
			// The review compares with the kept run, as the next push's
			// does: the run's findings are not held beside it.
			return *kept
		}
	}
	return out
}

// unreadableFinding is the yaml-invalid finding of a file the pull request
// changes whose content the host could not give (its blob is gone, over
// the size bound, or does not decode): the author's file went unchecked,
// which the review says where findings are said, at the file's first line.
// A file the pull request does not touch, or one read only as a chart's
// or overlay's data (not YAML), stays a NotChecked entry of the summary
// instead. yaml-invalid is always on: only its severity is the config's.
func unreadableFinding(cfg *checks.Config, plan *renderPlan, f File) (checks.Finding, bool) {
	if !plan.changes(f.Path) {
		return checks.Finding{}, false
	}
	switch strings.ToLower(path.Ext(f.Path)) {
	case ".yaml", ".yml", ".json", ".tpl":
	default:
		return checks.Finding{}, false
	}
	sev := cfg.SeverityOf(manifest.ProblemYAML)
	if sev == 0 {
		sev = checks.Error
	}
	return checks.Finding{
		RuleID: manifest.ProblemYAML, Severity: sev, File: f.Path,
		Line: 1, Column: 1, EndLine: 1,
		Message: "file could not be read, so it was not checked: " + f.Unreadable,
		Object:  checks.ObjectRef{Doc: -1},
	}, true
}

// maxNamedRenders is how many renders a comment merged from several names.
const maxNamedRenders = 5

// groupSuggestions puts suggestions naming the same findings together, in
// the order of their first suggestion.
func groupSuggestions(sugs []Suggestion) [][]Suggestion {
	var out [][]Suggestion
	index := map[string]int{}
	for _, s := range sugs {
		key := fmt.Sprint(s.Findings)
		if i, ok := index[key]; ok {
			out[i] = append(out[i], s)
			continue
		}
		index[key] = len(out)
		out = append(out, []Suggestion{s})
	}
	return out
}

// mergeFindings returns the findings of renders (marked) and of the files
// checked as written (plain, in checks.SortFindings' order, as a run
// returns them) together in that order, stable, and which of them came
// from a render. Without findings of renders it is plain itself, not
// copied: a review of a repository without charts sorted
// and copied its every finding twice over, as structs of 200 bytes.
func mergeFindings(marked, plain []checks.Finding) ([]checks.Finding, []bool) {
	if len(marked) == 0 {
		checks.SortFindings(plain) // returns at once: they are in order
		return plain, nil
	}
	all := make([]checks.Finding, 0, len(marked)+len(plain))
	all = append(append(all, marked...), plain...)
	// Sorted as indexes, each finding moved once, keeping which came from
	// a render (the first len(marked)).
	order := make([]int32, len(all))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(i, j int32) int { return checks.CompareFindings(&all[i], &all[j]) })
	out := make([]checks.Finding, len(all))
	rendered := make([]bool, len(all))
	for i, k := range order {
		out[i], rendered[i] = all[k], int(k) < len(marked)
	}
	return out, rendered
}
