package bot

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/parallel"
	"github.com/prodready/prodready/internal/plural"
)

// Prepare computes the review of pr without publishing it. cfg is the
// config at base, or nil to read it.
//
// It checks the repository at head and at base (both through the blob
// cache: the base shares every blob the pull request does not change, so
// its parses come from the cache) and compares the findings by identity
// (checks.Finding.Fingerprint): a finding is new when the base has none
// with its identity, wherever it is. New findings are what the review
// reports (review.report says whether the pre-existing ones of the files
// the pull request changes are too); threads are made on added lines for
// findings at or above review.inline, at most review.maxComments of them.
func (rv *Reviewer) Prepare(ctx context.Context, host Host, pr PullRequest, cfg *checks.Config) (Review, error) {
	if cfg == nil {
		c, err := LoadConfig(ctx, host, pr)
		if err != nil {
			return Review{}, err
		}
		cfg = c
	}
	if r, ok := As[resolver](host); ok && pr.BaseSHA == "" {
		// The base to compare with (GitLab's diff_refs when the event
		// carried none).
		if resolved, err := r.Resolve(ctx, pr); err == nil {
			pr.BaseSHA = resolved.BaseSHA
			if pr.HeadSHA == "" {
				pr.HeadSHA = resolved.HeadSHA
			}
		}
	}
	changed, err := host.ChangedFiles(ctx, pr)
	if err != nil {
		return Review{}, fmt.Errorf("listing changed files: %w", err)
	}
	// patches are the changed files at head: findings are kept in them
	// (a template or values file of a rendered chart as well as a manifest).
	patches := map[string]string{}
	relevant := false
	for _, f := range changed {
		if f.Path == checks.ConfigFileName {
			continue
		}
		if rv.Render != nil && (mayRender(f.Path) || (f.PreviousPath != "" && mayRender(f.PreviousPath))) {
			relevant = true
		}
		if f.Status != "removed" && cfg.Wants(f.Path) || f.PreviousPath != "" && cfg.Wants(f.PreviousPath) || f.Status == "removed" && cfg.Wants(f.Path) {
			relevant = true
		}
		if f.Status == "removed" {
			continue
		}
		patches[f.Path] = f.Patch
	}
	if !relevant {
		return Review{
			Conclusion: "neutral",
			Title:      "No Kubernetes manifests changed",
			Summary:    "## prodready\n\nThis pull request changes no file prodready checks (by default `*.yaml` and `*.yml`; see `include`/`exclude` in `.prodready.yaml`).\n",
			Body:       "prodready: this pull request changes no Kubernetes manifest.",
			PR:         pr,
		}, nil
	}
	if mb, ok := As[mergeBaser](host); ok && pr.BaseSHA != "" && pr.HeadSHA != "" && pr.BaseSHA != pr.HeadSHA {
		// Findings are compared with the merge base, which the diff is
		// taken against: the base branch's own changes since are neither
		// new nor fixed by this pull request. (The config stays the base
		// branch's; the host's changed files are against the merge base
		// already, and a pull request that changes no manifest costs no
		// lookup.)
		if sha, err := mb.MergeBase(ctx, pr); err != nil {
			LoggerFrom(ctx).Warn("no merge base; comparing with the base branch's tip, whose own changes since may show as new or fixed", "err", err.Error())
		} else {
			pr.BaseSHA = sha
		}
	}
	load := func(ref string) (*renderPlan, []File, error) {
		plan := newRenderPlan(cfg, changed)
		files, err := loadFiles(ctx, host, pr, ref, cfg, plan, rv.Render != nil, rv.Cache)
		if err != nil {
			return nil, nil, fmt.Errorf("loading manifests at %s: %w", short(ref), err)
		}
		return plan, files, nil
	}
	// The base is read first: the head's versions of the files the pull
	// request changes are the base's with their patches applied, so they
	// come from the cache, and the head costs its tree only.
	var base *runOutput
	if pr.BaseSHA != "" && pr.BaseSHA != pr.HeadSHA {
		bplan, bfiles, err := load(pr.BaseSHA)
		if err != nil {
			return Review{}, err
		}
		rv.derive(changed, bfiles)
		b := rv.run(ctx, bplan, bfiles, cfg, true)
		base = &b
	}
	plan, files, err := load(pr.HeadSHA)
	if err != nil {
		return Review{}, err
	}
	out := rv.run(ctx, plan, files, cfg, false)
	src := map[string][]byte{}
	for _, f := range files {
		src[f.Path] = f.Data
	}
	return rv.assemble(ctx, pr, cfg, changed, patches, src, out, base), nil
}

// derive puts in the cache the head's version of each changed file it can
// make from the base's version (in base) and the file's patch, under its
// git blob SHA: when the result is the head's content, the head's tree
// names that SHA and the host reads nothing; when it is not (a patch the
// host cut short), nothing ever asks for that SHA. An added file is its
// patch applied to nothing.
func (rv *Reviewer) derive(changed []ChangedFile, base []File) {
	if rv.Cache == nil {
		return
	}
	at := make(map[string][]byte, len(base))
	for _, f := range base {
		if f.Skipped == "" { // a link's text was never read
			at[f.Path] = f.Data
		}
	}
	for _, c := range changed {
		if c.Status == "removed" || c.Patch == "" || len(c.Patch) > maxDerivedPatch {
			continue
		}
		from := c.Path
		if c.PreviousPath != "" {
			from = c.PreviousPath
		}
		old, ok := at[from]
		if !ok && c.Status != "added" {
			continue
		}
		data, err := ApplyPatch(old, c.Patch, false)
		if err != nil {
			continue
		}
		sha := GitBlobSHA(data)
		if c.SHA != "" && sha != c.SHA {
			continue // the host names the head's blob: this is not it
		}
		if _, cached := rv.Cache.Get(sha); !cached {
			rv.Cache.Put(sha, data)
		}
	}
}

// maxDerivedPatch bounds the patch derive applies (a host's patch of one
// file is at most a few MB).
const maxDerivedPatch = 8 << 20

// mergeBaser is a Host whose pull requests name the base branch's tip as
// their base (GitHub's base.sha), which can look up the merge base of base
// and head. GitLab's diff_refs.base_sha is the merge base already.
type mergeBaser interface {
	MergeBase(ctx context.Context, pr PullRequest) (string, error)
}

// resolver is a Host that can look up a pull request's base and head
// commits when the event did not carry them (GitLab's Resolve).
type resolver interface {
	Resolve(ctx context.Context, pr PullRequest) (PullRequest, error)
}

// IgnoredByPR is a finding an ignore of the pull request's silences: an
// ignore in a file it changes that silences a finding the base did not
// silence (a finding new in the pull request, one the base reported, or
// one moved under an ignore the base had), or, with no base checked, an
// ignore on a line the pull request adds.
type IgnoredByPR struct {
	Finding checks.Finding
	// File and Line are where the ignore is; By is the ignore as written.
	File string
	Line int
	By   string
	// Added is true when the ignore's line is one the pull request adds
	// (false: an ignore the base has reaches a finding it did not
	// silence there).
	Added bool
	// Honoured is true only when review.allowIgnoresInPR is true in the
	// config at base; otherwise the finding is counted (graded and
	// reported) as if the ignore were not there.
	Honoured bool
}

// assemble classifies the head's findings against the base's, makes the
// threads and the summary.
func (rv *Reviewer) assemble(ctx context.Context, pr PullRequest, cfg *checks.Config, changed []ChangedFile, patches map[string]string, src map[string][]byte, out runOutput, base *runOutput) Review {
	mode := cfg.Review.ReportMode()
	diffs := map[string]*Diff{}
	diffOf := func(p string) *Diff {
		if d, ok := diffs[p]; ok {
			return d
		}
		d, err := ParsePatch(patches[p])
		if err != nil {
			d = &Diff{}
		}
		diffs[p] = d
		return d
	}
	// The head's findings, in order: its run's own when it has no render
	// problem and no unreadable file (clipped: a finding added below is
	// added to a copy), not a copy of every finding; read where its run
	// found them (lean, a push's mostly in the memo) while nothing is
	// added to them, each made a Finding as it is read.
	head := slices.Clip(out.findings)
	lean := out.lean
	if len(out.problems)+len(out.unreadable) > 0 {
		head = append(append(append([]checks.Finding(nil), out.all()...), out.problems...), out.unreadable...)
		lean = nil
	}
	r := Review{NotChecked: out.notChecked(patches), PR: pr, ReportMode: mode, BaseChecked: base != nil}
	if out.res != nil {
		r.Files, r.Objects = len(out.res.Files), out.res.Kubernetes
	}
	// Ignores of the pull request's: in a changed file, silencing what the
	// base did not silence (with no base, on a line the pull request adds).
	// Unless the config at base trusts them they do not count: the finding
	// is graded as if the ignore were not there, and listed either way.
	if out.res != nil {
		var silencedAtBase map[string]bool
		if base != nil {
			silencedAtBase = base.identities().silenced
		}
		for _, s := range out.res.Silenced {
			if _, ok := patches[s.File]; !ok {
				continue
			}
			added := diffOf(s.File).IsAdded(s.Line)
			if base != nil && silencedAtBase[s.Finding.Fingerprint()] || base == nil && !added {
				continue // the base silenced it already, or no base to tell
			}
			ig := IgnoredByPR{Finding: s.Finding, File: s.File, Line: s.Line, By: s.By, Added: added, Honoured: cfg.Review.IgnoresInPR()}
			r.IgnoredByPR = append(r.IgnoredByPR, ig)
			if !ig.Honoured {
				if lean != nil {
					head, lean = lean.All(), nil
				}
				head = append(head, s.Finding)
			}
		}
	}
	checks.SortFindings(head) // a lean run's are sorted
	n, at := len(head), func(i int) checks.Finding { return head[i] }
	if lean != nil {
		n, at = lean.Len(), lean.At
	}
	var atBase *runIdentities // fingerprint -> index in base.findings, then base.problems
	var atHead []bool         // of those indexes, the ones head has
	if base != nil {
		atBase = base.identities()
		atHead = make([]bool, base.count()+len(base.problems))
	}
	ignored := map[string]bool{} // silenced, not fixed
	for _, ig := range r.IgnoredByPR {
		ignored[ig.Finding.Fingerprint()] = true
	}
	nsPaths := out.namespaces
	if base != nil {
		nsPaths = mergeNamespaces(out.namespaces, base.namespaces)
	}
	// The head's fingerprints as keys, hashed on every CPU: at 50,000
	// objects a push's head has some 150,000 findings. Each is looked up
	// at base and its file among the changed ones there too: most of a
	// push's findings are neither new nor in a changed file, and are not
	// made a Finding again below (on one core, the lookups and the copies
	// were some 30-50 ms of a push's wall time).
	keys := make([]uint64, n)
	atBaseOf := make([]int32, n) // index at base (identities), -1 when new
	touchedAt := make([]bool, n)
	var mu sync.Mutex
	mergedKeys := map[int][]uint64{} // of the few findings that stand for several objects
	const share = 1024
	parallel.For((n+share-1)/share, func(s int) {
		for i := s * share; i < min(n, (s+1)*share); i++ {
			f := at(i)
			keys[i] = f.FingerprintKey()
			if len(f.Merged) > 0 {
				mu.Lock()
				mergedKeys[i] = f.MergedKeys()
				mu.Unlock()
			}
			_, touchedAt[i] = patches[f.File]
			atBaseOf[i] = -1
			if atBase != nil {
				if j, ok := atBase.findKey(keys[i]); ok {
					atBaseOf[i] = int32(j)
				}
			}
		}
	})
	if base != nil {
		sameLineAtBase(base, atBaseOf, touchedAt, at)
	}
	byFile := map[string][]checks.Finding{}
	atHeadMerged := map[uint64]bool{} // the base's merged objects (runIdentities.merged) the head has
	for i := range n {
		touched, old := touchedAt[i], atBaseOf[i] >= 0
		if base != nil && (len(mergedKeys[i]) > 0 || !old && len(atBase.merged) > 0) {
			// A finding that stands for several objects (a base line
			// that overlays build) is new when one of them is new: each
			// may be merged into another object's finding at base.
			ks := mergedKeys[i]
			if !old {
				ks = append([]uint64{keys[i]}, ks...)
			}
			old = atBase.allAt(ks, atHead, atHeadMerged)
		}
		if old && atBaseOf[i] >= 0 {
			atHead[atBaseOf[i]] = true
		}
		if old && touched && mode != checks.ReportAll && homeUnchanged(at(i), patches) {
			touched = false // check reports it in a file the pull request does not change
		}
		if old && !touched && mode != checks.ReportAll {
			continue // neither listed nor reported
		}
		f := at(i)
		isNew := !old
		if isNew && !touched {
			touched = atAddedPart(&f, diffOf, patches)
		}
		switch {
		case isNew:
			if !touched {
				f.Message += causedBy(f, changed, nsPaths)
				r.Elsewhere = true
			}
			r.New = append(r.New, f)
		case touched:
			r.PreExisting = append(r.PreExisting, f)
		}
		report := isNew || mode == checks.ReportAll || mode == checks.ReportTouched && touched
		if !report {
			continue
		}
		r.Findings = append(r.Findings, f)
		if touched && f.Fixable() {
			r.Fixable = append(r.Fixable, f)
		}
		if touched && f.Severity >= cfg.Review.InlineSeverity() {
			byFile[f.File] = append(byFile[f.File], f)
			continue
		}
		r.Outside = append(r.Outside, f)
	}
	// The head's fingerprints, its keys sorted (keys is not read after).
	r.Fingerprints = fingerprintSetOfKeys(keys)
	if base != nil {
		// Each identity of the base once (two findings with one make one
		// index), fixed when the head has it not and no ignore of the pull
		// request's silences it.
		fixed := func(i int) {
			if atHead[i] {
				return
			}
			f := base.nth(i)
			if ignored[f.Fingerprint()] {
				return
			}
			f = withoutFix(f)
			r.Fixed = append(r.Fixed, f)
			if _, touched := patches[f.File]; !touched {
				r.Elsewhere = true
			}
		}
		for _, i := range atBase.found {
			fixed(i)
		}
		for _, i := range atBase.foundText {
			fixed(i)
		}
		// Each object a base finding stood for besides its own, fixed
		// when the head has it not.
		for k, m := range atBase.merged {
			f := base.nth(m.index)
			f.Object, f.Merged = m.object, nil
			if atHeadMerged[k] || ignored[f.Fingerprint()] {
				continue
			}
			if _, ok := atBase.found[k]; ok {
				continue // also a finding of its own at base
			}
			f = withoutFix(f)
			r.Fixed = append(r.Fixed, f)
			if _, touched := patches[f.File]; !touched {
				r.Elsewhere = true
			}
		}
	}
	checks.SortFindings(r.Fixed)
	paths := make([]string, 0, len(byFile))
	for p := range byFile {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		cs, outside := rv.threads(ctx, p, src[p], patches[p], byFile[p], out.fromRender)
		r.Comments = append(r.Comments, cs...)
		r.Outside = append(r.Outside, outside...)
	}
	// The cap keeps the threads of the worst findings.
	limit := cfg.Review.CommentCap()
	if len(r.Comments) > limit {
		sort.SliceStable(r.Comments, func(i, j int) bool { return worst(r.Comments[i]) > worst(r.Comments[j]) })
		for _, c := range r.Comments[limit:] {
			r.Beyond = append(r.Beyond, c.Findings...)
			r.Outside = append(r.Outside, c.Findings...)
		}
		r.Comments = r.Comments[:limit]
		sort.SliceStable(r.Comments, func(i, j int) bool {
			if r.Comments[i].Path != r.Comments[j].Path {
				return r.Comments[i].Path < r.Comments[j].Path
			}
			return r.Comments[i].Line < r.Comments[j].Line
		})
		checks.SortFindings(r.Beyond)
	}
	checks.SortFindings(r.Findings)
	checks.SortFindings(r.Outside)
	r.Conclusion = "success"
	if cfg.Fails(r.Findings) {
		r.Conclusion = "failure"
	}
	r.Title = Title(r.Findings)
	if mode == checks.ReportNew {
		r.Title = newTitle(r.Findings)
	}
	r.Summary = Summary(r, cfg.FailOnSeverity())
	r.Body = reviewLine(r)
	return r
}

// ReportedScope is an Applier's Scope: the findings the review of pr
// reports (by default those new against the base), so that Apply fixes
// commits the fixes of what the review shows and nothing older. It
// prepares the review again, reading through the same blob and parse
// caches.
func (rv *Reviewer) ReportedScope(ctx context.Context, host Host, pr PullRequest, cfg *checks.Config) (func(checks.Finding) bool, error) {
	r, err := rv.Prepare(ctx, host, pr, cfg)
	if err != nil {
		return nil, err
	}
	reported := map[string]bool{}
	for _, f := range r.Fixable {
		reported[f.Fingerprint()] = true
	}
	return func(f checks.Finding) bool { return reported[f.Fingerprint()] }, nil
}

func worst(c Comment) checks.Severity {
	var s checks.Severity
	for _, f := range c.Findings {
		s = max(s, f.Severity)
	}
	return s
}

// newTitle is Title for new findings: "2 new errors, 1 new warning".
func newTitle(fs []checks.Finding) string {
	t := Title(fs)
	if t == "No findings" {
		return "No new findings"
	}
	parts := strings.Split(t, ", ")
	for i, p := range parts {
		n, rest, _ := strings.Cut(p, " ")
		parts[i] = n + " new " + rest
	}
	return strings.Join(parts, ", ")
}

// reviewLine is the review's one-line body.
func reviewLine(r Review) string {
	return fmt.Sprintf("prodready: %s (%s inline); the summary has the rest.", strings.ToLower(r.Title), plural.Count(len(r.Comments), "thread", "threads"))
}

// maxCauses is how many changed files a finding's cause names.
const maxCauses = 3

// sameLineAtBase pairs each head finding that is new by its fingerprint,
// in a file the pull request does not change, with the base's finding of
// the same rule, kind and field at the same line of that file, when the
// base has one the head has not: atBaseOf[i] is set to its index. The
// finding is the same problem of the same line, about an object a render
// names anew: a base built alone at base (default namespace) and, once the
// pull request adds an overlay on it, built by that overlay (its
// namespace, its name prefix). Without this the review counted each as
// fixed and again as new, and failed the check on errors nobody wrote.
// The base's findings are read only when the head has such a finding.
func sameLineAtBase(base *runOutput, atBaseOf []int32, touchedAt []bool, at func(int) checks.Finding) {
	type place struct {
		file, rule, group, kind, path string
		line                          int
	}
	key := func(f checks.Finding) place {
		return place{f.File, f.RuleID, f.Object.Group, f.Object.Kind, f.IdentityField(), f.Line}
	}
	wanted := map[place][]int{}
	for i := range atBaseOf {
		if atBaseOf[i] < 0 && !touchedAt[i] {
			if f := at(i); f.Object.Kind != "" {
				wanted[key(f)] = append(wanted[key(f)], i)
			}
		}
	}
	if len(wanted) == 0 {
		return
	}
	matched := make([]bool, base.count())
	for _, j := range atBaseOf {
		if j >= 0 && int(j) < len(matched) {
			matched[j] = true
		}
	}
	for j := range matched {
		if matched[j] {
			continue
		}
		for _, i := range wanted[key(base.nth(j))] {
			atBaseOf[i] = int32(j)
		}
	}
}

// atAddedPart moves f, new in a pull request that does not change its
// file, to the first of its Parts on a line the pull request adds, where
// the author changed what it is about: a values key its template line
// composes its scalar from (the tag: latest of an image written
// "{{ .Values.image.repository }}:{{ .Values.image.tag }}"), or the one
// that brings it about (replicaCount raised to 3, which asks for a
// spread), or its home, where check reports it (a base line whose fix is
// a patch appended to an overlay). Its message names the line it was on,
// or, at its home, its fix says where it edits. A fix it has edits that
// line, in a file the pull request does not change, which a suggestion
// on the added line cannot: it stays a description, and the comment has
// no suggestion. False when f is not moved.
func atAddedPart(f *checks.Finding, diffOf func(string) *Diff, patches map[string]string) bool {
	for _, p := range f.Parts {
		if _, ok := patches[p.File]; !ok || !diffOf(p.File).IsAdded(p.Line) {
			continue
		}
		switch {
		case p.Home:
			// Where check reports it: the fix, which edits another line,
			// says where.
		case p.Cause:
			f.Message += fmt.Sprintf(" (at line %d of `%s`: this line's value brings it about)", f.Line, f.File)
		default:
			f.Message += fmt.Sprintf(" (line %d of `%s` writes it, with this line's value in it)", f.Line, f.File)
		}
		if f.Fix != nil && (f.Fixable() || f.Fix.TurnOn != nil) {
			fx := *f.Fix
			fx.Edits, fx.Lines, fx.Also, fx.TurnOn = nil, nil, nil, nil
			fx.Description += fmt.Sprintf(" (not a suggestion here: it edits `%s`, which this pull request does not change)", f.File)
			f.Fix = &fx
		}
		f.File, f.Line, f.EndLine, f.Column = p.File, p.Line, p.Line, p.Column
		f.ContainerLine = 0
		return true
	}
	return false
}

// homeUnchanged reports whether f, which a verified fix moved to the line
// it edits, has its home (checks.Place.Home: where check reports it) in a
// file the pull request does not change: a base's finding whose fix is a
// patch appended to the overlay the pull request changes is not one of
// that overlay's.
func homeUnchanged(f checks.Finding, patches map[string]string) bool {
	for _, p := range f.Parts {
		if p.Home {
			_, changed := patches[p.File]
			return !changed
		}
	}
	return false
}

// causedBy says which change makes a finding new in a file the pull
// request does not touch: the changed files one of its parts is in (the
// values line a template's value is composed from), else the changed
// files that hold (at head or base) an object of the finding's namespace,
// else every changed file, a few named.
func causedBy(f checks.Finding, changed []ChangedFile, nsPaths map[string]map[string]bool) string {
	nsOf := nsPaths[f.Object.Namespace]
	inParts := map[string]bool{}
	for _, p := range f.Parts {
		inParts[p.File] = true
	}
	var parts, named, others []string
	for _, c := range changed {
		if c.Path == checks.ConfigFileName {
			continue
		}
		what := "`" + c.Path + "`"
		switch c.Status {
		case "removed":
			what = "removing " + what
		case "added":
			what = "adding " + what
		case "renamed":
			what = "renaming `" + c.PreviousPath + "` to " + what
		default:
			what = "the change to " + what
		}
		switch {
		case inParts[c.Path]:
			parts = append(parts, what)
		case nsOf[c.Path] || nsOf[c.PreviousPath]:
			named = append(named, what)
		default:
			others = append(others, what)
		}
	}
	if len(parts) > 0 {
		named = parts
	} else if len(named) == 0 {
		named = others
	}
	more := ""
	if len(named) > maxCauses {
		more = fmt.Sprintf(" and %d more", len(named)-maxCauses)
		named = named[:maxCauses]
	}
	if len(named) == 0 {
		return " (new in this pull request, though it does not change this file)"
	}
	return " (new in this pull request, though it does not change this file: caused by " + strings.Join(named, ", ") + more + ")"
}

// namespacePaths maps each namespace to the paths that hold an object of
// it in a run.
func namespacePaths(res *checks.Result) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	if res == nil {
		return out
	}
	// A file's objects are most often of one namespace: each file is
	// looked up and added once a run of them (at 50,000 objects, three
	// lookups and an insert of every object were some 10 ms of a push).
	for _, mf := range res.Files {
		ns := ""
		for i, o := range mf.Objects {
			if i > 0 && o.Namespace == ns {
				continue
			}
			ns = o.Namespace
			paths := out[ns]
			if paths == nil {
				paths = map[string]bool{}
				out[ns] = paths
			}
			paths[mf.Path] = true
		}
	}
	return out
}

// mergeNamespaces is namespacePaths of two runs, head and base.
func mergeNamespaces(a, b map[string]map[string]bool) map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(a))
	for _, m := range []map[string]map[string]bool{a, b} {
		for ns, paths := range m {
			if out[ns] == nil {
				out[ns] = map[string]bool{}
			}
			for p := range paths {
				out[ns][p] = true
			}
		}
	}
	return out
}

// LineURL is the web address of a line of a file at the pull request's
// head, from its URL (GitHub's …/pull/N, GitLab's …/-/merge_requests/N);
// "" when the pull request has no URL.
func LineURL(pr PullRequest, file string, line int) string {
	return lineURLAt(pr, pr.HeadSHA, file, line)
}

// lineURLAt is LineURL at commit sha (the base's, for a finding the pull
// request fixes).
func lineURLAt(pr PullRequest, sha, file string, line int) string {
	u := pr.URL
	var repo string
	switch {
	case strings.Contains(u, "/-/merge_requests/"):
		repo = u[:strings.Index(u, "/-/merge_requests/")] + "/-/blob/"
	case strings.Contains(u, "/pull/"):
		repo = u[:strings.LastIndex(u, "/pull/")] + "/blob/"
	default:
		return ""
	}
	return fmt.Sprintf("%s%s/%s#L%d", repo, sha, path.Clean(file), line)
}
