package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// DefaultMaxComments is how many inline comments one review posts at most;
// the rest are folded into the review body and the annotations.
const DefaultMaxComments = 40

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
	// MaxComments caps inline comments per review (DefaultMaxComments when 0).
	MaxComments int
	// Logger receives the job's log lines (slog.Default when nil).
	Logger *slog.Logger
}

// NewReviewer returns a Reviewer that caches blobs in cache (which may be
// nil: then nothing is cached) and logs to logger.
func NewReviewer(cache BlobCache, logger *slog.Logger) *Reviewer {
	if logger == nil {
		logger = slog.Default()
	}
	return &Reviewer{Cache: cache, Logger: logger, MaxComments: DefaultMaxComments, Suggest: SuggestFixes}
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

// LoadConfig reads .prodready.yaml at the pull request's base commit (a
// pull request cannot switch off its own checks); no file means defaults.
func LoadConfig(ctx context.Context, host Host, pr PullRequest) (*checks.Config, error) {
	ref := pr.BaseSHA
	if ref == "" {
		ref = pr.BaseRef
	}
	data, err := host.ReadFile(ctx, pr, ref, checks.ConfigFileName)
	if err != nil {
		return nil, fmt.Errorf("reading %s at base %s: %w", checks.ConfigFileName, short(ref), err)
	}
	if data == nil {
		return checks.DefaultConfig(catalog.Default()), nil
	}
	cfg, err := checks.ParseConfig(data, catalog.Default())
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

// Prepare computes the review of pr without publishing it. cfg is the
// config at base, or nil to read it.
func (rv *Reviewer) Prepare(ctx context.Context, host Host, pr PullRequest, cfg *checks.Config) (Review, error) {
	if cfg == nil {
		c, err := LoadConfig(ctx, host, pr)
		if err != nil {
			return Review{}, err
		}
		cfg = c
	}
	changed, err := host.ChangedFiles(ctx, pr)
	if err != nil {
		return Review{}, fmt.Errorf("listing changed files: %w", err)
	}
	patches := map[string]string{}
	for _, f := range changed {
		if f.Status == "removed" || f.Path == checks.ConfigFileName || !cfg.Wants(f.Path) {
			continue
		}
		patches[f.Path] = f.Patch
	}
	if len(patches) == 0 {
		return Review{
			Conclusion:   "neutral",
			Title:        "No Kubernetes manifests changed",
			Summary:      "## prodready\n\nThis pull request changes no file prodready checks (by default `*.yaml` and `*.yml`; see `include`/`exclude` in `.prodready.yaml`).\n",
			Fingerprints: map[string]bool{},
		}, nil
	}
	want := func(p string) bool { return p != checks.ConfigFileName && cfg.Wants(p) }
	files, err := host.Manifests(ctx, pr, pr.HeadSHA, want, rv.Cache)
	if err != nil {
		return Review{}, fmt.Errorf("loading manifests at %s: %w", short(pr.HeadSHA), err)
	}
	src := map[string][]byte{}
	for _, f := range files {
		src[f.Path] = f.Data
	}
	res := rv.run(files, cfg)
	byFile := map[string][]checks.Finding{}
	var kept []checks.Finding
	for _, f := range res.Findings {
		if _, ok := patches[f.File]; ok {
			byFile[f.File] = append(byFile[f.File], f)
			kept = append(kept, f)
		}
	}
	r := Review{Findings: kept, Fingerprints: map[string]bool{}}
	for _, f := range kept {
		r.Fingerprints[f.Fingerprint()] = true
	}
	paths := make([]string, 0, len(byFile))
	for p := range byFile {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		cs, outside, err := rv.place(ctx, p, src[p], patches[p], byFile[p])
		if err != nil {
			return Review{}, err
		}
		r.Comments = append(r.Comments, cs...)
		r.Outside = append(r.Outside, outside...)
	}
	rv.fold(&r)
	checks.SortFindings(r.Outside)
	r.Conclusion = "success"
	if cfg.Fails(kept) {
		r.Conclusion = "failure"
	}
	r.Title = Title(kept)
	r.Summary = Summary(r, cfg.FailOnSeverity())
	return r, nil
}

// run checks files, taking from the cache, when it is a ParsedCache, every
// file whose blob was parsed before with the same limits, and keeping there
// the ones the run parses.
func (rv *Reviewer) run(files []File, cfg *checks.Config) *checks.Result {
	lim := cfg.ParseLimits()
	pc, _ := rv.Cache.(ParsedCache)
	inputs := make([]checks.Input, len(files))
	var miss []int
	for i, f := range files {
		inputs[i] = checks.Input{Path: f.Path, Data: f.Data}
		if pc != nil && f.SHA != "" {
			if pf, ok := pc.GetParsed(f.Path, f.SHA, lim); ok {
				inputs[i].Parsed = pf
				continue
			}
		}
		miss = append(miss, i)
	}
	opts := checks.Options{}
	if pc != nil {
		// Packed (pointer-free node arrays, a tree inflated only while
		// its rules run), a cached file holds about half the memory, so
		// the cache keeps about twice as many files; the rules run as fast
		// on them (BenchmarkRulesCorpus, within noise). Each document is
		// packed as soon as it is parsed.
		opts.Memory = checks.PackTrees
	}
	res := checks.Run(inputs, cfg, opts)
	if pc != nil {
		for _, i := range miss {
			if files[i].SHA != "" {
				pc.PutParsed(files[i].SHA, res.Files[i], lim)
			}
		}
	}
	return res
}

// place splits one file's findings into inline comments (on added lines of
// the diff, with suggestions whose whole range lies in one hunk) and the
// findings that cannot be commented inline.
func (rv *Reviewer) place(ctx context.Context, path string, src []byte, patch string, fs []checks.Finding) ([]Comment, []checks.Finding, error) {
	d, err := ParsePatch(patch)
	if err != nil {
		LoggerFrom(ctx).Warn("unreadable diff; findings go to the summary", "file", path, "err", err.Error())
		d = &Diff{}
	}
	var sugs []Suggestion
	if rv.Suggest != nil && len(src) > 0 {
		sugs, err = rv.Suggest(path, src, fs)
		if err != nil {
			// A fix that cannot be rendered must not stop the review.
			LoggerFrom(ctx).Warn("no suggestions for file", "file", path, "err", err.Error())
			sugs = nil
		}
	}
	covered := make([]bool, len(fs))
	creds := credentialLines(src, fs)
	var out []Comment
	// A fix may take several separate line ranges: checks/fix returns one
	// suggestion per range, all naming the same findings. They are commented
	// together (each range in one hunk) or not at all: half a fix is wrong.
	for _, part := range groupSuggestions(sugs) {
		ok, added := true, false
		var group []checks.Finding
		for _, k := range part[0].Findings {
			if k < 0 || k >= len(fs) || covered[k] {
				ok = false
				break
			}
			group = append(group, fs[k])
			added = added || d.IsAdded(fs[k].Line)
		}
		for _, s := range part {
			ok = ok && s.StartLine >= 1 && s.EndLine >= s.StartLine && d.InOneHunk(s.StartLine, s.EndLine)
			added = added || d.AddedIn(s.StartLine, s.EndLine)
		}
		if !ok || !added || len(group) == 0 || repeatsCredential(part, creds) {
			continue
		}
		for _, k := range part[0].Findings {
			covered[k] = true
		}
		for i := range part {
			c := newComment(path, part[i].StartLine, part[i].EndLine, group, &part[i])
			if len(part) > 1 {
				c.Body = Truncate(fmt.Sprintf("Part %d of %d of this fix: commit all %d suggestions together (**Add suggestion to batch**).\n\n", i+1, len(part), len(part))+c.Body, MaxBodyChars)
			}
			out = append(out, c)
		}
	}
	var outside []checks.Finding
	for i, f := range fs {
		if covered[i] {
			continue
		}
		if d.IsAdded(f.Line) {
			out = append(out, newComment(path, f.Line, f.Line, []checks.Finding{f}, nil))
			continue
		}
		outside = append(outside, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out, outside, nil
}

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

func newComment(path string, start, end int, fs []checks.Finding, s *Suggestion) Comment {
	c := Comment{Path: path, StartLine: start, Line: end, Body: Truncate(CommentBody(fs, s), MaxBodyChars), Findings: fs}
	if s != nil {
		sc := *s
		c.Suggestion = &sc
	}
	for _, f := range fs {
		c.Fingerprints = append(c.Fingerprints, f.Fingerprint())
	}
	c.Fingerprint = c.Fingerprints[0]
	return c
}

// fold moves comments beyond the cap into the review body and the outside
// findings (annotations).
func (rv *Reviewer) fold(r *Review) {
	limit := rv.MaxComments
	if limit <= 0 {
		limit = DefaultMaxComments
	}
	if len(r.Comments) <= limit {
		return
	}
	extra := r.Comments[limit:]
	r.Comments = r.Comments[:limit]
	byFP := map[string]checks.Finding{}
	for _, f := range r.Findings {
		byFP[f.Fingerprint()] = f
	}
	var b strings.Builder
	fmt.Fprintf(&b, "prodready has %d more findings on changed lines than it comments inline:\n\n", len(extra))
	for _, c := range extra {
		for _, fp := range c.Fingerprints {
			f, ok := byFP[fp]
			if !ok {
				continue
			}
			r.Outside = append(r.Outside, f)
			fmt.Fprintf(&b, "- `%s:%d` **%s** `%s`: %s\n", f.File, f.Line, f.Severity, f.RuleID, cell(f.Message))
		}
	}
	r.Body = Truncate(b.String(), MaxBodyChars)
}
