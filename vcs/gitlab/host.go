// Package gitlab is prodready's GitLab adapter: Host implements bot.Host
// against the GitLab REST API (gitlab.com or self-managed) with merge request
// discussions, ```suggestion:-0+N blocks and a commit status, and
// Intake turns Merge Request Hook deliveries into bot.Jobs.
package gitlab

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/bot/treecache"
	"github.com/prodready/prodready/internal/plural"
)

// StatusName is the name of the commit status the Host sets.
const StatusName = "prodready"

// Options configure a Host.
type Options struct {
	// BaseURL is the GitLab instance, e.g. https://gitlab.com or
	// https://gitlab.example.com (the /api/v4 suffix is added).
	BaseURL string
	// Token is a project, group or personal access token with the api
	// scope, read from a file; it is never logged.
	Token string
	// HTTPClient sends the requests; nil means a client with sane timeouts.
	HTTPClient *http.Client
	// RetryBudget bounds how long one request is retried after 429 and 5xx
	// answers (default one minute).
	RetryBudget time.Duration
	// RetryWait is the first wait between attempts (default 500ms; it
	// doubles up to 30s).
	RetryWait time.Duration
	// Metrics counts API calls (nil: not counted).
	Metrics *bot.Metrics
	// MaxAnswerBytes bounds the body read of every API answer, raw files
	// and blobs included (bot.MaxAnswerBytes when 0).
	MaxAnswerBytes int64
	// HeadWait bounds how long the Host waits for GitLab to compute a
	// merge request's diff_refs for a new push (default one minute).
	HeadWait time.Duration
}

// Host implements bot.Host for GitLab merge requests. It is safe for
// concurrent use by many jobs.
type Host struct {
	api      *gl.Client
	headWait time.Duration
	clk      *clock
	waitStep time.Duration

	mu     sync.Mutex
	userID int64
	refs   map[mrKey]gl.MergeRequestDiffRefs
	diffs  map[mrKey]map[string]*fileDiff
}

var _ bot.Host = (*Host)(nil)

// mrKey names one merge request at one head commit.
type mrKey struct {
	project string
	iid     int
	head    string
}

// maxCached bounds the per-push caches (diff_refs and parsed diffs).
const maxCached = 256

// NewHost returns a Host talking to the GitLab instance at opt.BaseURL.
func NewHost(opt Options) (*Host, error) {
	if opt.Token == "" {
		return nil, errors.New("gitlab: no access token")
	}
	base := strings.TrimRight(opt.BaseURL, "/")
	if base == "" {
		base = "https://gitlab.com"
	}
	if !strings.HasSuffix(base, "/api/v4") {
		base += "/api/v4"
	}
	hc := opt.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	inner := hc.Transport
	if inner == nil {
		inner = http.DefaultTransport
	}
	clk := realClock()
	budget, first, maxWait := opt.RetryBudget, opt.RetryWait, 30*time.Second
	if budget <= 0 {
		budget = time.Minute
	}
	if first <= 0 {
		first = 500 * time.Millisecond
	}
	maxWait = max(maxWait, first)
	rt := newRetryTransport(inner, budget, first, maxWait, clk, opt.Metrics, opt.MaxAnswerBytes)
	client := *hc
	client.Transport = rt
	api, err := gl.NewClient(opt.Token,
		gl.WithBaseURL(base),
		gl.WithHTTPClient(&client),
		gl.WithoutRetries(), // retryTransport retries, within its budget
		gl.WithUserAgent("prodready"),
		gl.WithURLWarningLogger(slog.New(slog.DiscardHandler)),
	)
	if err != nil {
		return nil, fmt.Errorf("creating GitLab client for %s: %w", base, err)
	}
	h := &Host{
		api: api, headWait: opt.HeadWait, clk: clk, waitStep: first,
		refs: map[mrKey]gl.MergeRequestDiffRefs{}, diffs: map[mrKey]map[string]*fileDiff{},
	}
	if h.headWait <= 0 {
		h.headWait = time.Minute
	}
	return h, nil
}

// pid is the project as the API takes it: its id, else its full path.
func pid(pr bot.PullRequest) any {
	if pr.RepoID != 0 {
		return pr.RepoID
	}
	return pr.Repo
}

func keyOf(pr bot.PullRequest) mrKey {
	return mrKey{project: fmt.Sprint(pid(pr)), iid: pr.Number, head: pr.HeadSHA}
}

// Resolve fills in pr's BaseSHA (and HeadSHA when empty) from the merge
// request's diff_refs, which a webhook delivery does not carry. GitLab
// computes them shortly after a push, so Resolve waits (up to
// Options.HeadWait) until diff_refs exist and name pr.HeadSHA as head.
// Every Host method resolves the pull request it is given; callers need
// not.
func (h *Host) Resolve(ctx context.Context, pr bot.PullRequest) (bot.PullRequest, error) {
	r, err := h.diffRefs(ctx, pr)
	if err != nil {
		return pr, err
	}
	pr.BaseSHA, pr.HeadSHA = r.BaseSha, r.HeadSha
	return pr, nil
}

// diffRefs returns the merge request's diff_refs at pr.HeadSHA (base, start
// and head: the SHAs a discussion position names), fetched once per push.
// start_sha is GitLab's own and stays here, not in bot.PullRequest.
func (h *Host) diffRefs(ctx context.Context, pr bot.PullRequest) (gl.MergeRequestDiffRefs, error) {
	k := keyOf(pr)
	h.mu.Lock()
	r, ok := h.refs[k]
	h.mu.Unlock()
	if ok {
		return r, nil
	}
	r, err := h.fetchRefs(ctx, pr)
	if err != nil {
		return r, err
	}
	if pr.HeadSHA == "" {
		k.head = r.HeadSha
	}
	h.mu.Lock()
	if len(h.refs) >= maxCached {
		clear(h.refs)
	}
	h.refs[k] = r
	h.mu.Unlock()
	return r, nil
}

func (h *Host) fetchRefs(ctx context.Context, pr bot.PullRequest) (gl.MergeRequestDiffRefs, error) {
	deadline := h.clk.now().Add(h.headWait)
	wait := h.waitStep
	for {
		mr, _, err := h.api.MergeRequests.GetMergeRequest(pid(pr), int64(pr.Number), nil, gl.WithContext(ctx))
		if err != nil {
			return gl.MergeRequestDiffRefs{}, fmt.Errorf("getting merge request !%d of %s: %w", pr.Number, pr.Repo, err)
		}
		r := mr.DiffRefs
		if r.BaseSha != "" && r.HeadSha != "" && (pr.HeadSHA == "" || r.HeadSha == pr.HeadSHA) {
			if r.StartSha == "" {
				r.StartSha = r.BaseSha
			}
			return r, nil
		}
		if r.HeadSha != "" && r.HeadSha != pr.HeadSHA && mr.SHA != pr.HeadSHA {
			return gl.MergeRequestDiffRefs{}, fmt.Errorf("merge request !%d moved on to %.12s; that push is reviewed instead of %.12s", pr.Number, r.HeadSha, pr.HeadSHA)
		}
		if h.clk.now().Add(wait).After(deadline) {
			return gl.MergeRequestDiffRefs{}, fmt.Errorf("merge request !%d: GitLab has not computed the diff of %.12s yet", pr.Number, pr.HeadSHA)
		}
		if err := h.clk.sleep(ctx, wait); err != nil {
			return gl.MergeRequestDiffRefs{}, fmt.Errorf("waiting for the diff of merge request !%d: %w", pr.Number, err)
		}
		wait = min(2*wait, 10*time.Second)
	}
}

// ChangedFiles lists the files the merge request changes, from
// merge_requests/:iid/diffs (every page). A new file whose diff GitLab left
// out (too_large or collapsed) gets an all-added patch from its content at
// head; another file without a diff gets its hunks from the merge request's
// raw diff (raw_diffs, fetched once) or, when GitLab cannot give that, no
// patch: then none of its lines is commented inline.
func (h *Host) ChangedFiles(ctx context.Context, pr bot.PullRequest) ([]bot.ChangedFile, error) {
	pr, err := h.Resolve(ctx, pr)
	if err != nil {
		return nil, err
	}
	out, _, err := h.changedFiles(ctx, pr)
	return out, err
}

func (h *Host) changedFiles(ctx context.Context, pr bot.PullRequest) ([]bot.ChangedFile, map[string]*fileDiff, error) {
	var out []bot.ChangedFile
	diffs := map[string]*fileDiff{}
	var raw map[string]string // the whole raw diff, fetched once if needed
	opt := &gl.ListMergeRequestDiffsOptions{ListOptions: gl.ListOptions{PerPage: 100, Page: 1}}
	for {
		page, resp, err := h.api.MergeRequests.ListMergeRequestDiffs(pid(pr), int64(pr.Number), opt, gl.WithContext(ctx))
		if err != nil {
			return nil, nil, fmt.Errorf("listing the diffs of merge request !%d: %w", pr.Number, err)
		}
		for _, d := range page {
			cf := bot.ChangedFile{Path: d.NewPath, Patch: d.Diff, Status: "modified"}
			switch {
			case d.NewFile:
				cf.Status = "added"
			case d.DeletedFile:
				cf.Status = "removed"
			case d.RenamedFile:
				cf.Status, cf.PreviousPath = "renamed", d.OldPath
			}
			if (d.TooLarge || d.Collapsed || d.Diff == "") && !d.DeletedFile {
				cf.Patch = ""
				switch {
				case d.NewFile:
					data, err := h.readFile(bot.WithAnswerLimit(ctx, bot.MaxFileBytes), pr, pr.HeadSHA, d.NewPath)
					if _, tooLarge := bot.AnswerTooLarge(err); tooLarge {
						// Not commented inline; its blob read stops at the
						// same bound, which makes its finding.
						bot.LoggerFrom(ctx).Warn("gitlab: added file too large to read, not commented inline", "path", d.NewPath, "err", err)
						break
					}
					if err != nil {
						return nil, nil, err
					}
					cf.Patch = bot.AddedFilePatch(data)
				default:
					if raw == nil {
						raw = h.rawDiffs(ctx, pr)
					}
					cf.Patch = raw[d.NewPath]
				}
			}
			if cf.Patch != "" && !d.DeletedFile {
				parsed, err := bot.ParsePatch(cf.Patch)
				if err != nil {
					bot.LoggerFrom(ctx).Warn("gitlab: unreadable diff, file not commented inline", "path", d.NewPath, "err", err)
					cf.Patch = ""
				} else {
					diffs[d.NewPath] = &fileDiff{OldPath: d.OldPath, NewPath: d.NewPath, Diff: parsed}
				}
			}
			out = append(out, cf)
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	h.mu.Lock()
	if len(h.diffs) >= maxCached {
		clear(h.diffs)
	}
	h.diffs[keyOf(pr)] = diffs
	h.mu.Unlock()
	return out, diffs, nil
}

// ReadFile returns path at ref, or (nil, nil) when it does not exist. An
// empty ref, or the target branch's name while pr has no BaseSHA (a webhook
// delivery does not carry it), means the merge request's base commit
// (diff_refs.base_sha), so the config is read where the diff starts.
func (h *Host) ReadFile(ctx context.Context, pr bot.PullRequest, ref, path string) ([]byte, error) {
	if ref == "" || (pr.BaseSHA == "" && ref == pr.BaseRef) {
		var err error
		if pr, err = h.Resolve(ctx, pr); err != nil {
			return nil, err
		}
		ref = pr.BaseSHA
	}
	return h.readFile(ctx, pr, ref, path)
}

func (h *Host) readFile(ctx context.Context, pr bot.PullRequest, ref, path string) ([]byte, error) {
	data, _, err := h.api.RepositoryFiles.GetRawFile(pid(pr), path, &gl.GetRawFileOptions{Ref: gl.Ptr(ref)}, gl.WithContext(ctx))
	if errors.Is(err, gl.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s at %.12s: %w", path, ref, err)
	}
	return data, nil
}

// Manifests lists the repository tree at ref (recursive, every page of
// keyset pagination) and returns the blobs want picks, from cache when
// their SHA is known; the others are read raw by SHA (a few at a time) when
// at most ArchiveThreshold are missing, else from one archive of the
// commit, so the number of requests grows neither with the repository nor
// with the merge request. What is read is cached. An empty ref means the
// merge request's head commit. Submodules are skipped; a symbolic link
// want picks is not read, and is returned Skipped (bot.SymbolicLink).
func (h *Host) Manifests(ctx context.Context, pr bot.PullRequest, ref string, want bot.Want, cache bot.BlobCache) ([]bot.File, error) {
	if ref == "" {
		var err error
		if pr, err = h.Resolve(ctx, pr); err != nil {
			return nil, err
		}
		ref = pr.HeadSHA
	}
	tree, err := h.treeFiles(ctx, pr, ref, cache)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(tree))
	for i, f := range tree {
		paths[i] = f.Path
	}
	picked := want(paths)
	var files []bot.File
	for _, f := range tree {
		switch {
		case !picked[f.Path]:
		case f.Link:
			files = append(files, bot.File{Path: f.Path, SHA: f.SHA, Skipped: bot.SymbolicLink})
		default:
			files = append(files, bot.File{Path: f.Path, SHA: f.SHA})
		}
	}
	var missing []*bot.File
	for i := range files {
		if files[i].Skipped != "" {
			continue
		}
		if cache != nil {
			if data, ok := cache.Get(files[i].SHA); ok {
				files[i].Data = data
				continue
			}
		}
		missing = append(missing, &files[i])
	}
	if len(missing) > ArchiveThreshold {
		missing = h.fromArchive(ctx, pr, ref, missing, cache)
	}
	if err := h.readBlobs(ctx, pr, missing, cache); err != nil {
		return nil, err
	}
	return files, nil
}

// treeFiles lists the files of the tree at ref, 100 a request. The tree at
// the merge request's base is kept in cache (package treecache): every
// push lists it again, 500 requests at 50,000 files.
func (h *Host) treeFiles(ctx context.Context, pr bot.PullRequest, ref string, cache bot.BlobCache) ([]treecache.Entry, error) {
	key := treecache.Key(pr, ref)
	if tree, ok := treecache.Get(cache, key); ok {
		return tree, nil
	}
	var tree []treecache.Entry
	// Keyset pagination, which GitLab recommends for trees (offset pages
	// are capped on large repositories); the next page is the Link
	// header's rel="next" either way.
	opt := &gl.ListTreeOptions{ListOptions: gl.ListOptions{Pagination: "keyset", PerPage: 100}, Ref: gl.Ptr(ref), Recursive: gl.Ptr(true)}
	reqOpts := []gl.RequestOptionFunc{gl.WithContext(ctx)}
	for {
		nodes, resp, err := h.api.Repositories.ListTree(pid(pr), opt, reqOpts...)
		if err != nil {
			return nil, fmt.Errorf("listing the tree at %.12s: %w", ref, err)
		}
		for _, n := range nodes {
			if n.Type == "blob" {
				tree = append(tree, treecache.Entry{Path: n.Path, SHA: n.ID, Link: n.Mode == "120000"})
			}
		}
		if resp == nil || resp.NextLink == "" {
			break
		}
		reqOpts = []gl.RequestOptionFunc{gl.WithContext(ctx), gl.WithKeysetPaginationParameters(resp.NextLink)}
	}
	treecache.Put(cache, key, tree)
	return tree, nil
}

// readBlobs reads files' contents raw by blob SHA, eight at a time, and
// caches them; a file whose blob GitLab no longer has, or that is over
// bot.MaxFileBytes, is marked Unreadable.
func (h *Host) readBlobs(ctx context.Context, pr bot.PullRequest, files []*bot.File, cache bot.BlobCache) error {
	var (
		wg       sync.WaitGroup
		sem      = make(chan struct{}, 8)
		errMu    sync.Mutex
		firstErr error
	)
	for _, f := range files {
		wg.Add(1)
		go func(f *bot.File) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			data, resp, err := h.api.Repositories.RawBlobContent(pid(pr), f.SHA, gl.WithContext(bot.WithAnswerLimit(ctx, bot.MaxFileBytes)))
			// One file the host cannot give is named, not the end of the
			// review.
			if err != nil && resp != nil && resp.StatusCode == http.StatusNotFound {
				f.Unreadable = "GitLab answered 404 for its blob"
				return
			}
			if limit, ok := bot.AnswerTooLarge(err); ok {
				// GitLab's tree does not give sizes: the read stops at the
				// bound.
				f.Unreadable = fmt.Sprintf("over the %s a file is read to", plural.Bytes(limit))
				return
			}
			if err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("reading blob %s (%s): %w", f.SHA, f.Path, err)
				}
				errMu.Unlock()
				return
			}
			f.Data = data
			if cache != nil {
				cache.Put(f.SHA, data)
			}
		}(f)
	}
	wg.Wait()
	return firstErr
}

// rawDiffs fetches the merge request's whole raw diff and splits it by new
// path. It returns an empty map when GitLab does not give it (an instance
// older than the endpoint, or a diff over its limits): the files then stay
// without a patch.
func (h *Host) rawDiffs(ctx context.Context, pr bot.PullRequest) map[string]string {
	b, _, err := h.api.MergeRequests.ShowMergeRequestRawDiffs(pid(pr), int64(pr.Number), nil, gl.WithContext(ctx))
	if err != nil {
		bot.LoggerFrom(ctx).Warn("gitlab: no raw diff; files GitLab collapsed are not commented inline", "err", err.Error())
		return map[string]string{}
	}
	return bot.SplitFiles(string(b))
}
