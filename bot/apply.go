package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/internal/plural"
	"github.com/prodready/prodready/internal/udiff"

	"github.com/prodready/prodready/internal/inert"
)

// maxFixAttempts bounds how many times Apply computes the fixes again
// after leaving out those that did not settle.
const maxFixAttempts = 3

// MaxPatchChars bounds the patch a refusal carries (GitHub's check-run
// output text holds 65,535 characters, with room left for the rest).
const MaxPatchChars = 50000

// Applier commits the fixes of a pull request's findings to its head
// branch, as one commit, at a user's request: the same fixes prodready fix
// makes (package fix's rounds, a chart's fixes verified by rendering it
// again as edits of its values files), with the config at the base commit.
type Applier struct {
	// Cache keeps manifest contents by blob SHA (shared with the
	// Reviewer); nil: nothing is cached.
	Cache BlobCache
	// Render renders the charts the pull request touches (nil: none is, and
	// their templates are left as they are). Kustomize overlays are not
	// built: their bases and patches are fixed as written, as prodready fix
	// does.
	Render rendered.Renderer
	// Logger receives the job's log lines (slog.Default when nil).
	Logger *slog.Logger
	// Scope, when set, narrows the findings whose fixes are committed to
	// those the returned func accepts; it is asked once per request with
	// the config at base. Without it every finding in a file the pull
	// request changes is in scope (what the review reports). The review of
	// new findings against the base commit narrows it to the new ones.
	Scope func(ctx context.Context, host Host, pr PullRequest, cfg *checks.Config) (func(checks.Finding) bool, error)
}

// NewApplier returns an Applier sharing cache and render with the review.
func NewApplier(cache BlobCache, render rendered.Renderer, logger *slog.Logger) *Applier {
	return &Applier{Cache: cache, Render: render, Logger: logger}
}

func (a *Applier) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}

// Run carries out job.Fix on job.Host and posts the outcome; it is the
// worker pool's handler for fix jobs (see Dispatch). An error is returned
// only when the outcome could not be posted, or the request failed: then
// the delivery may be redelivered (a redelivery after a commit finds the
// branch at it and says nothing).
func (a *Applier) Run(ctx context.Context, job Job) error {
	if job.Host == nil || job.Fix == nil {
		return errors.New("fix job has no host or no request")
	}
	log := JobLogger(a.logger(), job)
	ctx = WithLogger(ctx, log)
	cm, ok := As[Committer](job.Host)
	if !ok {
		return fmt.Errorf("the %s host cannot commit fixes", job.PR.Host)
	}
	start := time.Now()
	req := *job.Fix
	var r FixReport
	if az, ok := As[FixAuthorizer](job.Host); ok && req.Refusal == "" {
		if err := az.AuthorizeFix(ctx, job.PR, req); errors.Is(err, ErrNotAllowed) {
			req.Refusal = err.Error()
		} else if err != nil {
			return fmt.Errorf("checking who asked for the fixes: %w", err)
		}
	}
	if req.Refusal != "" {
		log.Warn("fix request refused", "by", req.By, "press", req.Press, "reason", req.Refusal)
		r = FixReport{Outcome: FixRefused, Title: "Fixes not committed", Text: req.Refusal}
	} else {
		var err error
		r, err = a.Apply(ctx, job.Host, job.PR, req)
		if err != nil {
			log.Error("fixes failed", "err", err.Error())
			r = FixReport{Outcome: FixFailed, Title: "prodready could not apply the fixes", Text: "prodready could not apply the fixes: " + err.Error()}
			if ctx.Err() != nil {
				r.Text = "Applying the fixes was interrupted (the server is shutting down or the job ran out of time). Nothing was committed; ask again."
			}
		}
	}
	// "fix request done" is logged once the author can see the outcome:
	// after it is posted (a duplicate posts nothing, the first delivery
	// answered), so that a log reader never sees done before the host does.
	done := func() {
		log.Info("fix request done", "outcome", string(r.Outcome), "commit", r.Commit, "seconds", time.Since(start).Seconds())
	}
	if r.Outcome == FixDuplicate {
		done()
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), failTimeout)
	defer cancel()
	if err := cm.ReportFixes(rctx, job.PR, req, r); err != nil {
		return fmt.Errorf("posting the outcome (%s) of the fix request: %w", r.Outcome, err)
	}
	done()
	if r.Outcome == FixFailed {
		return errors.New(r.Text)
	}
	return nil
}

// LeftOut is a fix not committed, with why.
type LeftOut struct {
	Finding checks.Finding
	Reason  string
}

// applied is what computing the fixes gave.
type applied struct {
	before, after map[string][]byte // path -> content, of the files changed
	order         []string          // their paths, sorted
	fixed         []checks.Finding  // gone once fixed, one per fingerprint
	// partly are findings whose fix was applied but that stay, with no fix
	// left: the fix did its part (placeholder labels to fill in) and the
	// rest is the author's.
	partly  []checks.Finding
	leftOut []LeftOut
	// startingPoints counts the findings in scope whose fix is a starting
	// point, left out of an exact request.
	startingPoints int
	// unsettled is set when fixes still did not settle after
	// maxFixAttempts: nothing is committed.
	unsettled bool
}

// Apply computes the fixes req asks for at req.Head and commits them
// through host, which must be a Committer. Refusals are outcomes, not
// errors; an error means the request could not be carried out.
func (a *Applier) Apply(ctx context.Context, host Host, pr PullRequest, req FixRequest) (FixReport, error) {
	cm, ok := As[Committer](host)
	if !ok {
		return FixReport{}, fmt.Errorf("the %s host cannot commit fixes", pr.Host)
	}
	if req.Mode != FixExact && req.Mode != FixAll {
		return FixReport{}, fmt.Errorf("unknown fix mode %q", req.Mode)
	}
	if req.Head == "" {
		return FixReport{}, errors.New("the fix request names no head commit")
	}
	var err error
	if rs, ok := As[Resolver](host); ok {
		if pr, err = rs.Resolve(ctx, pr); err != nil {
			return FixReport{}, fmt.Errorf("reading the pull request: %w", err)
		}
	}
	head, err := cm.HeadCommit(ctx, pr)
	if err != nil {
		if errors.Is(err, ErrFork) || errors.Is(err, ErrNoPermission) {
			return refusal(err, nil), nil
		}
		return FixReport{}, fmt.Errorf("reading the head branch: %w", err)
	}
	if head.SHA != req.Head {
		if head.madeBy(req) {
			return FixReport{Outcome: FixDuplicate, Commit: head.SHA, Title: "Fixes already committed"}, nil
		}
		return FixReport{Outcome: FixRefused, Title: "Fixes not committed: the branch moved",
			Text: fmt.Sprintf("The fixes were asked for at %s, but the branch %s is now at %s: nothing was committed. The new push gets its own review; ask for the fixes there.", short(req.Head), inert.Code(pr.HeadRef), short(head.SHA))}, nil
	}
	// The head the fixes are computed at is the one the request names.
	pr.HeadSHA = req.Head
	cfg, err := LoadConfig(ctx, host, pr)
	if err != nil {
		return FixReport{}, err
	}
	ap, err := a.compute(ctx, host, pr, cfg, req.Mode)
	if err != nil {
		return FixReport{}, err
	}
	if ap.unsettled {
		return FixReport{Outcome: FixNothing, Title: "No fixes committed", Text: "The fixes did not settle: applying them kept changing the files. Nothing was committed; please report this.\n\n" + leftOutText(ap.leftOut)}, nil
	}
	if len(ap.order) == 0 {
		return FixReport{Outcome: FixNothing, Title: "Nothing to fix", Text: nothingText(ap, req.Mode)}, nil
	}
	patch := ap.patch()
	c := FixCommit{Branch: pr.HeadRef, Parent: req.Head, Message: commitMessage(ap, req)}
	for _, p := range ap.order {
		c.Files = append(c.Files, File{Path: p, Data: ap.after[p]})
	}
	sha, err := cm.CommitFixes(ctx, pr, c)
	switch {
	case err == nil:
	case errors.Is(err, ErrHeadMoved), errors.Is(err, ErrBranchProtected), errors.Is(err, ErrNoPermission), errors.Is(err, ErrFork):
		r := refusal(err, &ap)
		r.Patch = patch
		return r, nil
	default:
		return FixReport{}, fmt.Errorf("committing the fixes: %w", err)
	}
	r := FixReport{Outcome: FixCommitted, Commit: sha, Patch: patch,
		Title: fmt.Sprintf("Committed %s in %s", plural.Count(ap.count(), "fix", "fixes"), short(sha))}
	var b strings.Builder
	fmt.Fprintf(&b, "prodready committed %s (%s) to %s as %s:\n\n", plural.Count(ap.count(), "fix", "fixes"), plural.Count(len(ap.order), "file", "files"), inert.Code(pr.HeadRef), sha)
	writeFixedList(&b, ap.fixed)
	b.WriteString(partlyText(ap.partly))
	b.WriteString(leftOutText(ap.leftOut))
	b.WriteString(startingPointsText(ap, req.Mode))
	b.WriteString("\nThe new commit gets its own review.\n")
	r.Text = b.String()
	return r, nil
}

// refusal is the report of a commit refused for err's reason, with the
// patch when the fixes were computed.
func refusal(err error, ap *applied) FixReport {
	r := FixReport{Outcome: FixRefused}
	var why string
	switch {
	case errors.Is(err, ErrHeadMoved):
		r.Title = "Fixes not committed: the branch moved"
		why = "A push moved the branch while the fixes were being committed; nothing was overwritten and nothing was committed. The new push gets its own review; ask for the fixes there."
	case errors.Is(err, ErrBranchProtected):
		r.Title = "Fixes not committed: the branch is protected"
		why = "The branch is protected, and prodready never force-pushes or bypasses a protection."
	case errors.Is(err, ErrNoPermission):
		r.Title = "Fixes not committed: no permission to push"
		why = "prodready may not push to this repository."
	case errors.Is(err, ErrFork):
		r.Title = "Fixes not committed: the pull request comes from a fork"
		why = "The head branch is in a fork prodready cannot push to."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", why, inert.Text(err.Error()))
	if ap != nil && len(ap.order) > 0 {
		patch := ap.patch()
		fmt.Fprintf(&b, "\nThe %s, as a patch (`git apply` takes it; `prodready fix` makes the same):\n\n", plural.Count(ap.count(), "fix", "fixes"))
		if len(patch) > MaxPatchChars {
			fmt.Fprintf(&b, "(The patch is %d bytes, more than a reply holds: run `prodready fix` on the branch.)\n", len(patch))
		} else {
			b.WriteString(SuggestionBlockWith(patch, "diff"))
			b.WriteString("\n")
		}
		writeFixedList(&b, ap.fixed)
		b.WriteString(partlyText(ap.partly))
		b.WriteString(leftOutText(ap.leftOut))
	}
	r.Text = b.String()
	return r
}

// compute loads the pull request's files at its head, computes the fixes
// in scope and re-checks every document they edit: a fix whose finding
// stays, or whose document then has a finding it did not have, is left
// out and the fixes computed again without it.
func (a *Applier) compute(ctx context.Context, host Host, pr PullRequest, cfg *checks.Config, mode FixMode) (applied, error) {
	changed, err := host.ChangedFiles(ctx, pr)
	if err != nil {
		return applied{}, fmt.Errorf("listing changed files: %w", err)
	}
	inScope := map[string]bool{}
	for _, f := range changed {
		if f.Status != "removed" && f.Path != checks.ConfigFileName {
			inScope[f.Path] = true
		}
	}
	scope := func(f checks.Finding) bool { return inScope[path.Clean(f.File)] }
	if a.Scope != nil {
		narrow, err := a.Scope(ctx, host, pr, cfg)
		if err != nil {
			return applied{}, fmt.Errorf("choosing the findings to fix: %w", err)
		}
		wide := scope
		scope = func(f checks.Finding) bool { return wide(f) && narrow(f) }
	}
	plan := newRenderPlan(cfg, changed)
	files, err := loadFiles(ctx, host, pr, pr.HeadSHA, cfg, plan, a.Render != nil, a.Cache)
	if err != nil {
		return applied{}, fmt.Errorf("loading manifests at %s: %w", short(pr.HeadSHA), err)
	}
	var inputs []checks.Input
	for _, f := range files {
		if f.Unreadable != "" || f.Skipped != "" || (a.Render != nil && !plan.plain[f.Path]) {
			continue // not to be had, or loaded for a render only
		}
		inputs = append(inputs, checks.Input{Path: f.Path, Data: f.Data})
	}
	round := a.round(ctx, plan, files, cfg)
	first := round(inputs)
	firstFP := map[string]bool{} // the rules each object had at head
	for _, f := range first {
		firstFP[ruleKey(f)] = true
	}
	var ap applied
	excluded := map[string]bool{}    // fingerprints left out
	excludedObj := map[string]bool{} // objects whose fixes are all left out
	for attempt := 0; ; attempt++ {
		keep := func(f checks.Finding) bool {
			if !scope(f) || !f.Fixable() || excluded[f.Fingerprint()] || excludedObj[objectKey(f)] {
				return false
			}
			return mode == FixAll || f.ExactFix()
		}
		fixed, out := fix.ConvergeWith(inputs, round, keep)
		final := round(fixed)
		bad := a.unsettled(inputs, fixed, out, final, firstFP, keep)
		for _, fl := range out.Failed {
			if keep(fl.Finding) {
				ap.leftOut = appendLeftOut(ap.leftOut, LeftOut{Finding: fl.Finding, Reason: "the fix could not be applied: " + fl.Err.Error()})
			}
		}
		if len(bad) == 0 {
			// A fix kept that no round applied is in a file read for a
			// render only (a chart's values.yaml the config excludes, its
			// _helpers.tpl).
			for _, f := range out.Remaining {
				if keep(f) {
					ap.leftOut = appendLeftOut(ap.leftOut, LeftOut{Finding: f, Reason: checks.NotChangedReason(f.File)})
				}
			}
			ap.collect(inputs, fixed, out, final, scope, keep, mode)
			return ap, nil
		}
		for _, lo := range bad {
			ap.leftOut = appendLeftOut(ap.leftOut, lo)
			if lo.Finding.Object.Kind != "" && strings.HasPrefix(lo.Reason, newFindingReason) {
				excludedObj[objectKey(lo.Finding)] = true
			} else {
				excluded[lo.Finding.Fingerprint()] = true
			}
		}
		if attempt+1 >= maxFixAttempts {
			ap.unsettled = true
			return ap, nil
		}
		LoggerFrom(ctx).Info("fixes left out; computing the rest again", "left_out", len(bad))
	}
}

// newFindingReason starts the reason of fixes left out because their
// document had a new finding once fixed.
const newFindingReason = "re-checking the fixed document found"

// unsettled names the fixes that did not settle: a finding in scope still
// fixable after the rounds (its fix keeps coming back), and, for a finding
// of a rule the object did not have at head (as a chart's fix verified by
// rendering again must bring none), the fixes of its object (or, for a
// finding of no fixed object, such as a chart that no longer renders, of
// every file edited in its folder). firstFP holds ruleKey of the findings
// at head.
func (a *Applier) unsettled(inputs, fixed []checks.Input, out fix.Outcome, final []checks.Finding, firstFP map[string]bool, keep func(checks.Finding) bool) []LeftOut {
	edited := map[string]bool{}
	for i := range inputs {
		if !bytes.Equal(inputs[i].Data, fixed[i].Data) {
			edited[path.Clean(inputs[i].Path)] = true
		}
	}
	if len(edited) == 0 {
		return nil
	}
	fixedObj := map[string][]checks.Finding{}
	for _, f := range out.Fixed {
		fixedObj[objectKey(f)] = append(fixedObj[objectKey(f)], f)
	}
	failed := map[string]bool{}
	for _, fl := range out.Failed {
		failed[fl.Finding.Fingerprint()] = true
	}
	var bad []LeftOut
	for _, f := range final {
		if failed[f.Fingerprint()] {
			continue // named as not applied
		}
		if keep(f) && edited[path.Clean(f.File)] {
			bad = append(bad, LeftOut{Finding: f, Reason: fmt.Sprintf("the fix did not settle: its finding came back after %d rounds", max(out.Rounds, 1))})
			continue
		}
		if firstFP[ruleKey(f)] || keep(f) {
			continue // a rule the object had already (its message may change with a fix)
		}
		why := fmt.Sprintf("%s %s: %s", newFindingReason, f.RuleID, f.Message)
		if fs := fixedObj[objectKey(f)]; len(fs) > 0 {
			for _, g := range fs {
				bad = append(bad, LeftOut{Finding: g, Reason: why})
			}
			continue
		}
		dir := path.Dir(path.Clean(f.File))
		for _, g := range out.Fixed {
			if p := path.Clean(g.File); edited[p] && (dir == "." || strings.HasPrefix(p, dir+"/")) {
				bad = append(bad, LeftOut{Finding: g, Reason: why})
			}
		}
	}
	return bad
}

// collect records the outcome of the last attempt: the files changed, the
// findings fixed (gone from the final check) and the starting points an
// exact request left.
func (ap *applied) collect(inputs, fixed []checks.Input, out fix.Outcome, final []checks.Finding, scope, keep func(checks.Finding) bool, mode FixMode) {
	ap.before, ap.after = map[string][]byte{}, map[string][]byte{}
	for i := range inputs {
		if !bytes.Equal(inputs[i].Data, fixed[i].Data) {
			ap.before[inputs[i].Path] = inputs[i].Data
			ap.after[inputs[i].Path] = fixed[i].Data
			ap.order = append(ap.order, inputs[i].Path)
		}
	}
	sort.Strings(ap.order)
	still := map[string]bool{}
	stillFixable := map[string]bool{}
	for _, f := range final {
		still[f.Fingerprint()] = true
		stillFixable[f.Fingerprint()] = stillFixable[f.Fingerprint()] || f.Fixable()
		if mode == FixExact && scope(f) && f.Fixable() && !f.ExactFix() {
			ap.startingPoints++
		}
	}
	seen := map[string]bool{}
	for _, f := range out.Fixed {
		fp := f.Fingerprint()
		if seen[fp] || !keep(f) || stillFixable[fp] {
			continue
		}
		seen[fp] = true
		if still[fp] {
			ap.partly = append(ap.partly, f)
			continue
		}
		ap.fixed = append(ap.fixed, f)
	}
	checks.SortFindings(ap.fixed)
	checks.SortFindings(ap.partly)
}

// count is the number of fixes applied: findings fixed, and those fixed
// in part.
func (ap *applied) count() int { return len(ap.fixed) + len(ap.partly) }

// patch is the unified diff of the fixes, file by file.
func (ap *applied) patch() string {
	var b bytes.Buffer
	for _, p := range ap.order {
		udiff.Write(&b, p, ap.before[p], ap.after[p])
	}
	return b.String()
}

// ruleKey names a rule's findings about one object.
func ruleKey(f checks.Finding) string { return f.RuleID + "\x00" + objectKey(f) }

// objectKey names the object a finding is about within its file.
func objectKey(f checks.Finding) string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s\x00%s", path.Clean(f.File), f.Object.Doc, f.Object.Kind, f.Object.Namespace, f.Object.Name)
}

func appendLeftOut(los []LeftOut, lo LeftOut) []LeftOut {
	for _, o := range los {
		if o.Finding.Fingerprint() == lo.Finding.Fingerprint() {
			return los
		}
	}
	return append(los, lo)
}

// maxListed bounds the findings a commit message or report lists.
const maxListed = 200

// fixLine is one finding fixed, as the commit message and reports list it.
func fixLine(f checks.Finding) string {
	desc := ""
	if f.Fix != nil && f.Fix.Description != "" {
		desc = ": " + firstLineOf(f.Fix.Description)
	}
	return fmt.Sprintf("%s:%d %s%s", f.File, f.Line, f.RuleID, desc)
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// commitMessage lists the findings fixed, one line each, then who asked
// and the trailer naming the request.
func commitMessage(ap applied, req FixRequest) string {
	var b strings.Builder
	kind := "exact fixes"
	if req.Mode == FixAll {
		kind = "fixes, starting points included"
	}
	fmt.Fprintf(&b, "prodready: fix %s\n\n", plural.Count(ap.count(), "finding", "findings"))
	listed := append(append([]checks.Finding{}, ap.fixed...), ap.partly...)
	for i, f := range listed {
		if i == maxListed {
			fmt.Fprintf(&b, "- and %d more\n", len(listed)-maxListed)
			break
		}
		line := "- " + fixLine(f)
		if i >= len(ap.fixed) {
			line += " (in part: to finish by hand)"
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "\nThe %s prodready check reports, applied as prodready fix", kind)
	if req.Mode == FixAll {
		b.WriteString(" --all")
	}
	b.WriteString(" applies them")
	if req.By != "" {
		fmt.Fprintf(&b, ", at the request of @%s", req.By)
	}
	b.WriteString(".\n\n")
	fmt.Fprintf(&b, "%s: %s\n", FixesTrailer, req.Press)
	return b.String()
}

func writeFixedList(b *strings.Builder, fs []checks.Finding) {
	for i, f := range fs {
		if i == maxListed {
			fmt.Fprintf(b, "- and %d more\n", len(fs)-maxListed)
			break
		}
		fmt.Fprintf(b, "- %s\n", inert.Code(fixLine(f)))
	}
}

// partlyText names the fixes applied whose findings stay, for the author
// to finish.
func partlyText(fs []checks.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nApplied in part, to finish by hand (%s):\n\n", plural.Count(len(fs), "finding", "findings"))
	writeFixedList(&b, fs)
	return b.String()
}

func leftOutText(los []LeftOut) string {
	if len(los) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nLeft out (%s):\n\n", plural.Count(len(los), "fix", "fixes"))
	for i, lo := range los {
		if i == maxListed {
			fmt.Fprintf(&b, "- and %d more\n", len(los)-maxListed)
			break
		}
		fmt.Fprintf(&b, "- %s %s: %s\n", inert.Code(fmt.Sprintf("%s:%d", lo.Finding.File, lo.Finding.Line)), lo.Finding.RuleID, cell(lo.Reason))
	}
	return b.String()
}

func startingPointsText(ap applied, mode FixMode) string {
	if mode != FixExact || ap.startingPoints == 0 {
		return ""
	}
	return fmt.Sprintf("\n%s not applied: their values or effect depend on the app (ask for all fixes, starting points too, to commit them).\n", plural.Count(ap.startingPoints, "starting-point fix", "starting-point fixes"))
}

func nothingText(ap applied, mode FixMode) string {
	var b strings.Builder
	b.WriteString("No fix applies to the findings in the files this pull request changes: nothing was committed.\n")
	b.WriteString(leftOutText(ap.leftOut))
	b.WriteString(startingPointsText(ap, mode))
	return b.String()
}
