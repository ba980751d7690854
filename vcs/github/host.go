package github

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v88/github"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/bot/treecache"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/plural"

	"github.com/prodready/prodready/internal/inert"
)

// DefaultCheckName is the name of the check run the bot creates.
const DefaultCheckName = "prodready"

// maxReviewBodyChars keeps a review body, with its marker, under GitHub's
// 65,536 characters.
const maxReviewBodyChars = 65536 - 200

// maxAnnotationsPerRequest is GitHub's limit per check-run request.
const maxAnnotationsPerRequest = 50

// fixedMarker marks the reply that notes a thread's finding is fixed.
const fixedMarker = "<!-- prodready:fixed -->"

// Host is the bot.Host for one GitHub App installation.
type Host struct {
	client     *gh.Client
	httpClient *http.Client
	// archiveClient downloads tarballs from the link the API answers with
	// (codeload.github.com): it carries no credentials, the link has its
	// own token.
	archiveClient *http.Client
	graphqlURL    string
	// CheckName is the check run's name (DefaultCheckName when empty).
	CheckName string
	// perms reads the installation's permissions (FixActions); nil for a
	// Host not made by an App.
	perms *installationPerms
	// AppID, when set, is the App's id: the check runs the bot looks for
	// as its own are that App's.
	AppID int64
	// BotLogin, when set (e.g. "prodready[bot]"), restricts the comments
	// treated as the bot's own to that author; otherwise any Bot-type
	// author's comment carrying a fingerprint marker counts.
	BotLogin string
}

var _ bot.Host = (*Host)(nil)

// NewHost returns a Host that calls the API at baseURL (e.g.
// "https://api.github.com/" or "https://ghe.example.com/api/v3/") with
// httpClient, which must authenticate as the installation.
func NewHost(httpClient *http.Client, baseURL string) (*Host, error) {
	opts := []gh.ClientOptionsFunc{
		gh.WithHTTPClient(httpClient),
		// RetryTransport waits for rate limits; go-github would fail fast.
		gh.WithDisableRateLimitCheck(),
		gh.WithUserAgent("prodready"),
	}
	if baseURL != "" {
		if !strings.HasSuffix(baseURL, "/") {
			baseURL += "/"
		}
		opts = append(opts, gh.WithURLs(&baseURL, nil))
	}
	c, err := gh.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("creating GitHub client: %w", err)
	}
	return &Host{client: c, httpClient: httpClient, archiveClient: &http.Client{Timeout: 5 * time.Minute}, graphqlURL: GraphQLURL(c.BaseURL())}, nil
}

// GraphQLURL derives the GraphQL endpoint from the REST base URL:
// api.github.com/graphql, or /api/graphql on GitHub Enterprise Server.
func GraphQLURL(restBase string) string {
	if strings.HasSuffix(restBase, "/api/v3/") {
		return strings.TrimSuffix(restBase, "v3/") + "graphql"
	}
	return strings.TrimSuffix(restBase, "/") + "/graphql"
}

// repoOwner and repoName split pr.Repo ("owner/name"), as the REST and
// GraphQL APIs take it.
func repoOwner(pr bot.PullRequest) string {
	owner, _, _ := strings.Cut(pr.Repo, "/")
	return owner
}

func repoName(pr bot.PullRequest) string {
	_, name, _ := strings.Cut(pr.Repo, "/")
	return name
}

func (h *Host) checkName() string {
	if h.CheckName != "" {
		return h.CheckName
	}
	return DefaultCheckName
}

// ChangedFiles lists the pull request's files with their patches (all
// pages). GitHub lists at most 3,000 (its documentation says so; the pull
// request's changed_files counts them all): when it lists fewer than
// that count, the others are found by comparing the trees at the merge
// base and at the head (listedBeyond), without patches.
func (h *Host) ChangedFiles(ctx context.Context, pr bot.PullRequest) ([]bot.ChangedFile, error) {
	var out []bot.ChangedFile
	opt := &gh.ListOptions{PerPage: 100}
	for {
		files, resp, err := h.client.PullRequests.ListFiles(ctx, repoOwner(pr), repoName(pr), pr.Number, opt)
		if err != nil {
			return nil, fmt.Errorf("listing files of %s#%d: %w", pr.Repo, pr.Number, err)
		}
		for _, f := range files {
			out = append(out, bot.ChangedFile{
				Path: f.GetFilename(), PreviousPath: f.GetPreviousFilename(),
				Status: f.GetStatus(), Patch: f.GetPatch(), SHA: f.GetSHA(),
			})
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if len(out) < maxListedFiles {
		return out, nil
	}
	p, _, err := h.client.PullRequests.Get(ctx, repoOwner(pr), repoName(pr), pr.Number)
	if err != nil {
		return nil, fmt.Errorf("reading %s#%d: %w", pr.Repo, pr.Number, err)
	}
	if p.GetChangedFiles() <= len(out) {
		return out, nil
	}
	more, err := h.listedBeyond(ctx, pr, out)
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s#%d beyond the %d GitHub lists: %w", pr.Repo, pr.Number, len(out), err)
	}
	return append(out, more...), nil
}

// maxListedFiles is how many of a pull request's files GitHub lists at
// most, as its documentation says.
const maxListedFiles = 3000

// listedBeyond returns the files the pull request changes that listed
// does not hold, from the trees at its merge base and its head: added,
// modified or removed (a rename is a removal and an addition), each
// without a patch, so none of its lines is commentable.
func (h *Host) listedBeyond(ctx context.Context, pr bot.PullRequest, listed []bot.ChangedFile) ([]bot.ChangedFile, error) {
	base, err := h.MergeBase(ctx, pr)
	if err != nil {
		return nil, err
	}
	tree := func(ref string) (map[string]string, error) {
		budget := maxTreeRequests
		entries, err := h.listTree(ctx, pr, ref, "", &budget)
		if err != nil {
			return nil, fmt.Errorf("listing the tree at %s: %w", short(ref), err)
		}
		shas := make(map[string]string, len(entries))
		for _, e := range entries {
			shas[e.Path] = e.SHA
		}
		return shas, nil
	}
	before, err := tree(base)
	if err != nil {
		return nil, err
	}
	after, err := tree(pr.HeadSHA)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, 2*len(listed))
	for _, f := range listed {
		seen[f.Path], seen[f.PreviousPath] = true, true
	}
	var out []bot.ChangedFile
	for p, sha := range after {
		switch old, had := before[p]; {
		case seen[p] || had && old == sha:
		case had:
			out = append(out, bot.ChangedFile{Path: p, Status: "modified", SHA: sha})
		default:
			out = append(out, bot.ChangedFile{Path: p, Status: "added", SHA: sha})
		}
	}
	for p := range before {
		if _, kept := after[p]; !kept && !seen[p] {
			out = append(out, bot.ChangedFile{Path: p, Status: "removed"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// MergeBase is the merge base of the pull request's base and head commits
// (GET /repos/{o}/{r}/compare/{base}...{head}, merge_base_commit, one
// commit per page so the answer stays small): what the pull request's
// diff is taken against, where base.SHA is the base branch's tip, which
// has moved on when the branch got other changes since.
func (h *Host) MergeBase(ctx context.Context, pr bot.PullRequest) (string, error) {
	cmp, _, err := h.client.Repositories.CompareCommits(ctx, repoOwner(pr), repoName(pr), pr.BaseSHA, pr.HeadSHA, &gh.ListOptions{PerPage: 1})
	if err != nil {
		return "", fmt.Errorf("comparing %s...%s: %w", short(pr.BaseSHA), short(pr.HeadSHA), err)
	}
	sha := cmp.GetMergeBaseCommit().GetSHA()
	if sha == "" {
		return "", fmt.Errorf("comparing %s...%s: no merge base in the answer", short(pr.BaseSHA), short(pr.HeadSHA))
	}
	return sha, nil
}

// ReadFile returns one file at ref, or (nil, nil) when it does not exist.
func (h *Host) ReadFile(ctx context.Context, pr bot.PullRequest, ref, path string) ([]byte, error) {
	fc, _, resp, err := h.client.Repositories.GetContents(ctx, repoOwner(pr), repoName(pr), path, &gh.RepositoryContentGetOptions{Ref: ref})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", path, ref, err)
	}
	if fc == nil {
		return nil, nil // a folder
	}
	if fc.GetEncoding() == "base64" && fc.Content != nil {
		data, err := fc.GetContent()
		if err != nil {
			return nil, fmt.Errorf("decoding %s at %s: %w", path, ref, err)
		}
		return []byte(data), nil
	}
	// Files over 1 MB come without content: read the blob.
	return h.blob(ctx, pr, fc.GetSHA())
}

func (h *Host) blob(ctx context.Context, pr bot.PullRequest, sha string) ([]byte, error) {
	b, _, err := h.client.Git.GetBlob(ctx, repoOwner(pr), repoName(pr), sha)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: %w", sha, err)
	}
	if b.GetEncoding() != "base64" {
		return []byte(b.GetContent()), nil
	}
	data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(b.GetContent(), "\n", ""))
	if err != nil {
		return nil, fmt.Errorf("decoding blob %s: %w: %w", sha, errUndecodable, err)
	}
	return data, nil
}

// errUndecodable marks a blob whose answer arrived whole but whose base64
// content does not decode: asking again would get the same.
var errUndecodable = errors.New("its base64 content does not decode")

// Manifests returns the files at ref that want picks: one recursive tree
// request (more when GitHub truncates it: listTree), then the files not already in cache: one blob request each (four
// at a time) when at most ArchiveThreshold are missing, else one tarball of
// the commit, so the number of requests grows neither with the repository
// nor with the pull request. A symbolic link want picks is not read: it
// is returned Skipped (bot.SymbolicLink), to be named as not checked. The
// tree at the pull request's base is kept in cache (treecache): every
// push of a pull request reads it again.
func (h *Host) Manifests(ctx context.Context, pr bot.PullRequest, ref string, want bot.Want, cache bot.BlobCache) ([]bot.File, error) {
	entries, err := h.treeFiles(ctx, pr, ref, cache)
	if err != nil {
		return nil, err
	}
	log := bot.LoggerFrom(ctx)
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.Path
	}
	picked := want(paths)
	files := make([]bot.File, 0, len(picked))
	for _, e := range entries {
		if !picked[e.Path] {
			continue
		}
		if e.Link {
			files = append(files, bot.File{Path: e.Path, SHA: e.SHA, Skipped: bot.SymbolicLink})
			continue
		}
		if e.Size > bot.MaxFileBytes {
			log.Warn("manifest too large to load", "file", e.Path, "bytes", e.Size)
			files = append(files, bot.File{Path: e.Path, SHA: e.SHA, Unreadable: fmt.Sprintf("%s, over the %s a file is read to", plural.Bytes(int64(e.Size)), plural.Bytes(bot.MaxFileBytes))})
			continue
		}
		files = append(files, bot.File{Path: e.Path, SHA: e.SHA})
	}
	var missing []*bot.File
	for i := range files {
		if files[i].Unreadable != "" || files[i].Skipped != "" {
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
		wantSHA := make(map[string]string, len(missing))
		for _, f := range missing {
			wantSHA[f.Path] = f.SHA
		}
		got, err := h.archiveFiles(ctx, pr, ref, wantSHA)
		if err != nil {
			return nil, err
		}
		rest := missing[:0]
		for _, f := range missing {
			data, ok := got[f.Path]
			if !ok {
				rest = append(rest, f)
				continue
			}
			f.Data = data
			if cache != nil {
				cache.Put(f.SHA, data)
			}
		}
		if len(rest) > 0 {
			log.Warn("files missing from the tarball or differing from their blob (export-ignore, export-subst); reading their blobs", "files", len(rest))
		}
		missing = rest
	}
	if err := h.readBlobs(ctx, pr, missing, cache); err != nil {
		return nil, err
	}
	return files, nil
}

// treeFiles lists the files of the tree at ref, whole (listTree). The
// tree at the pull request's base is kept in cache (package treecache).
func (h *Host) treeFiles(ctx context.Context, pr bot.PullRequest, ref string, cache bot.BlobCache) ([]treecache.Entry, error) {
	key := treecache.Key(pr, ref)
	if entries, ok := treecache.Get(cache, key); ok {
		return entries, nil
	}
	budget := maxTreeRequests
	entries, err := h.listTree(ctx, pr, ref, "", &budget)
	if err != nil {
		return nil, fmt.Errorf("listing the tree at %s: %w", ref, err)
	}
	treecache.Put(cache, key, entries)
	return entries, nil
}

// maxTreeRequests bounds the tree requests one listing of a repository
// makes when GitHub truncates its recursive listings (over 100,000
// entries or 7 MB): each answers up to that many.
const maxTreeRequests = 200

// errTreeTooLarge is why a repository's tree is not listed: GitHub
// truncates its listings and maxTreeRequests do not cover it. The review
// fails saying so rather than check part of the repository in silence.
var errTreeTooLarge = fmt.Errorf("the repository's tree is too large to list: GitHub truncates its listings, and %d requests did not cover it", maxTreeRequests)

// listTree lists the files under tree sha (a commit's, or a folder's
// whose path is prefix) in one recursive request; when GitHub truncates
// that listing, as its documentation says to, the folder's own entries
// without recursion and each of its folders listed the same way, each
// request taken from budget.
func (h *Host) listTree(ctx context.Context, pr bot.PullRequest, sha, prefix string, budget *int) ([]treecache.Entry, error) {
	get := func(recursive bool) (*gh.Tree, error) {
		if *budget <= 0 {
			return nil, errTreeTooLarge
		}
		*budget--
		tree, _, err := h.client.Git.GetTree(ctx, repoOwner(pr), repoName(pr), sha, recursive)
		return tree, err
	}
	tree, err := get(true)
	if err != nil {
		return nil, err
	}
	entry := func(e *gh.TreeEntry) treecache.Entry {
		return treecache.Entry{Path: prefix + e.GetPath(), SHA: e.GetSHA(), Size: e.GetSize(), Link: e.GetMode() == "120000"}
	}
	if !tree.GetTruncated() {
		// Sized once: grown by doubling the list was megabytes of a
		// push's allocations at 50,000 objects.
		entries := make([]treecache.Entry, 0, len(tree.Entries))
		for _, e := range tree.Entries {
			if e.GetType() == "blob" {
				entries = append(entries, entry(e))
			}
		}
		return entries, nil
	}
	if tree, err = get(false); err != nil {
		return nil, err
	}
	var entries []treecache.Entry
	for _, e := range tree.Entries {
		switch e.GetType() {
		case "blob":
			entries = append(entries, entry(e))
		case "tree":
			sub, err := h.listTree(ctx, pr, e.GetSHA(), prefix+e.GetPath()+"/", budget)
			if err != nil {
				return nil, err
			}
			entries = append(entries, sub...)
		}
	}
	return entries, nil
}

// blobGone reports whether err says that one blob cannot be had at all
// (GitHub answers 404 for a blob it no longer has, 403 or 422 for one over
// its API's size limit; an answer over the bound or whose content does not
// decode), as opposed to a failure worth retrying, and says why in words
// for the finding.
func blobGone(err error) (string, bool) {
	if errors.Is(err, errUndecodable) {
		return "GitHub sent its blob, but " + errUndecodable.Error(), true
	}
	if limit, ok := bot.AnswerTooLarge(err); ok {
		// The tree said it was within the bound; the answer was not.
		return fmt.Sprintf("GitHub's answer for its blob was over the %s an answer is read to", plural.Bytes(limit)), true
	}
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return "", false
	}
	switch er.Response.StatusCode {
	case http.StatusNotFound, http.StatusUnprocessableEntity:
		return fmt.Sprintf("GitHub answered %d %s for its blob", er.Response.StatusCode, strings.TrimSpace(er.Message)), true
	case http.StatusForbidden:
		if strings.Contains(strings.ToLower(er.Message), "too large") || strings.Contains(er.Message, "blobs up to") {
			return "GitHub refused its blob as too large: " + er.Message, true
		}
	}
	return "", false
}

// readBlobs reads the content of files by blob SHA, four at a time; a file
// whose blob is gone or too large is marked Unreadable.
func (h *Host) readBlobs(ctx context.Context, pr bot.PullRequest, files []*bot.File, cache bot.BlobCache) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		sem      = make(chan struct{}, 4)
	)
	for _, f := range files {
		wg.Add(1)
		go func(f *bot.File) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			data, err := h.blob(ctx, pr, f.SHA)
			if why, gone := blobGone(err); gone {
				// One file the host cannot give is named, not the end of
				// the review.
				f.Unreadable = why
				return
			}
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("reading %s: %w", f.Path, err)
				}
				mu.Unlock()
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

// StartReview returns the check run the review is shown in: the bot's own
// run on the head that is still in progress (an earlier attempt's, whose
// create answer may have been lost), or a new one. A create whose answer
// was lost (a 5xx, a timeout) is not sent again: the run is looked for on
// the head, and the create fails only when it is not there.
func (h *Host) StartReview(ctx context.Context, pr bot.PullRequest) (bot.ReviewHandle, error) {
	if run, err := h.runningRun(ctx, pr); err != nil {
		bot.LoggerFrom(ctx).Warn("cannot look for an earlier check run; creating one", "err", err.Error())
	} else if run != nil {
		bot.LoggerFrom(ctx).Info("review resumed in the check run found in progress on the head", "check_run", run.GetID())
		return bot.ReviewHandle{ID: run.GetID(), Resumed: true}, nil
	}
	opt := gh.CreateCheckRunOptions{
		Name:       h.checkName(),
		HeadSHA:    pr.HeadSHA,
		ExternalID: gh.Ptr(externalID(pr)), // names the pull request in a fork's requested_action
		Status:     gh.Ptr("in_progress"),
		StartedAt:  &gh.Timestamp{Time: time.Now()},
		Output: &gh.CheckRunOutput{
			Title:   gh.Ptr("Reviewing Kubernetes manifests…"),
			Summary: gh.Ptr("prodready is reviewing the manifests this pull request changes."),
		},
	}
	var started bot.ReviewHandle
	err := sendChecked(ctx, "check run create", func() error {
		run, _, err := h.client.Checks.CreateCheckRun(ctx, repoOwner(pr), repoName(pr), opt)
		started.ID = run.GetID()
		return err
	}, func() (bool, error) {
		found, err := h.runningRun(ctx, pr)
		started.ID = found.GetID()
		return found != nil, err
	})
	if err != nil {
		return bot.ReviewHandle{}, fmt.Errorf("creating check run: %w", err)
	}
	return started, nil
}

// Fail completes the check run with conclusion failure and message.
func (h *Host) Fail(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, message string) error {
	if rh.ID == 0 {
		return nil
	}
	if err := h.completeRun(ctx, pr, rh.ID, "failure", "prodready could not finish the review", inert.Text(message)); err != nil {
		return fmt.Errorf("completing check run %d: %w", rh.ID, err)
	}
	return nil
}

// completeRun completes check run id with conclusion, title and summary
// (an update that sets fields, so it may be repeated).
func (h *Host) completeRun(ctx context.Context, pr bot.PullRequest, id int64, conclusion, title, summary string) error {
	_, _, err := h.client.Checks.UpdateCheckRun(ctx, repoOwner(pr), repoName(pr), id, gh.UpdateCheckRunOptions{
		Name:        h.checkName(),
		Status:      gh.Ptr("completed"),
		Conclusion:  gh.Ptr(conclusion),
		CompletedAt: &gh.Timestamp{Time: time.Now()},
		Output:      &gh.CheckRunOutput{Title: gh.Ptr(title), Summary: gh.Ptr(bot.Truncate(summary, bot.MaxSummaryChars))},
	})
	return err
}

// Publish posts one review with the threads not posted before, edits in
// place the first comment of the threads whose text changed, reopens the
// resolved threads whose finding is back and resolves those whose findings
// are gone (bot.PlanComments decides which), and completes the check run
// with annotations in batches of 50. It reads the posted comments (one
// page per 100) and, when there are some, the review threads (one GraphQL
// request per 100).
func (h *Host) Publish(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, r bot.Review) error {
	log := bot.LoggerFrom(ctx)
	posted, replied, err := h.postedComments(ctx, pr)
	if err != nil {
		return err
	}
	var threads map[int64]thread
	var terr error
	if len(posted) > 0 { // nothing to reopen or resolve otherwise
		threads, terr = h.reviewThreads(ctx, pr)
		if terr != nil {
			log.Warn("cannot list review threads; resolved state unknown", "err", terr.Error())
		}
	}
	for i := range posted {
		id, _ := strconv.ParseInt(posted[i].ID, 10, 64)
		posted[i].Resolved = threads[id].resolved
	}
	plan := bot.PlanComments(r, posted)
	if len(plan.Post) > 0 && rh.Resumed {
		// An earlier attempt may have posted a review whose inline
		// comments GitHub refused (its threads are in its body).
		bodies, err := h.ownReviewBodies(ctx, pr)
		if err != nil {
			return err
		}
		plan.Post = notInReviews(plan.Post, bodies)
	}
	if rh.ID == 0 {
		// No check run carries the summary (its create failed on the
		// job's last attempt): the review does, so the author is told the
		// outcome even when there is no new thread.
		r.Body = bot.Truncate(fmt.Sprintf("prodready could not create its **%s** check run, so this review carries its summary.\n\n%s", h.checkName(), r.Summary), maxReviewBodyChars)
	}
	if len(plan.Post) > 0 || rh.ID == 0 {
		if err := h.postReview(ctx, pr, r, plan.Post); err != nil {
			return err
		}
	}
	for _, e := range plan.Edit {
		id, err := strconv.ParseInt(e.Posted.ID, 10, 64)
		if err != nil {
			continue // not an id postedComments wrote
		}
		if _, _, err := h.client.PullRequests.EditComment(ctx, repoOwner(pr), repoName(pr), id, &gh.PullRequestComment{Body: gh.Ptr(e.Comment.Body)}); err != nil {
			return fmt.Errorf("editing review comment %d: %w", id, err)
		}
	}
	for _, p := range plan.Reopen {
		id, _ := strconv.ParseInt(p.ID, 10, 64)
		t, ok := threads[id]
		if !ok {
			continue
		}
		if err := h.unresolveThread(ctx, t.id); err != nil {
			log.Warn("cannot reopen review thread", "comment", id, "err", err.Error())
		}
	}
	if len(plan.Resolve) > 0 {
		h.resolveGone(ctx, pr, plan.Resolve, replied, threads, terr)
	}
	log.Info("review published", "threads", len(plan.Post), "kept", len(plan.Keep), "edited", len(plan.Edit), "reopened", len(plan.Reopen), "fixed", len(plan.Resolve), "conclusion", r.Conclusion)
	return h.completeCheckRun(ctx, pr, rh, r)
}

// postedComments lists the bot's earlier inline comments that carry
// markers (IDs are review comment ids in decimal), with where they are
// now, and the ids of those it already replied "fixed" to.
func (h *Host) postedComments(ctx context.Context, pr bot.PullRequest) ([]bot.Posted, map[int64]bool, error) {
	var out []bot.Posted
	replied := map[int64]bool{}
	opt := &gh.PullRequestListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := h.client.PullRequests.ListComments(ctx, repoOwner(pr), repoName(pr), pr.Number, opt)
		if err != nil {
			return nil, nil, fmt.Errorf("listing review comments: %w", err)
		}
		for _, c := range cs {
			if !h.ours(c.GetUser()) {
				continue
			}
			if c.GetInReplyTo() != 0 {
				if strings.Contains(c.GetBody(), fixedMarker) {
					replied[c.GetInReplyTo()] = true
				}
				continue
			}
			if fps := bot.Fingerprints(c.GetBody()); len(fps) > 0 {
				out = append(out, bot.Posted{ID: strconv.FormatInt(c.GetID(), 10), Key: bot.ThreadKey(c.GetBody()), Fingerprints: fps, Body: c.GetBody(),
					Path: c.GetPath(), StartLine: c.GetStartLine(), Line: c.GetLine()})
			}
		}
		if resp.NextPage == 0 {
			return out, replied, nil
		}
		opt.Page = resp.NextPage
	}
}

func (h *Host) ours(u *gh.User) bool {
	if h.BotLogin != "" {
		return strings.EqualFold(u.GetLogin(), h.BotLogin)
	}
	return u.GetType() == "Bot"
}

func (h *Host) postReview(ctx context.Context, pr bot.PullRequest, r bot.Review, cs []bot.Comment) error {
	body := r.Body
	if body == "" {
		body = fmt.Sprintf("prodready: %s in the changed Kubernetes manifests. The **%s** check has the summary.", strings.ToLower(r.Title), h.checkName())
	}
	marker := reviewMarker(pr.HeadSHA, cs)
	req := &gh.PullRequestReviewRequest{
		CommitID: gh.Ptr(pr.HeadSHA),
		Event:    gh.Ptr("COMMENT"),
		Body:     gh.Ptr(withMarker(body, marker)),
	}
	for _, c := range cs {
		dc := &gh.DraftReviewComment{Path: gh.Ptr(c.Path), Body: gh.Ptr(c.Body), Side: gh.Ptr("RIGHT"), Line: gh.Ptr(c.Line)}
		if c.StartLine > 0 && c.StartLine < c.Line {
			dc.StartLine, dc.StartSide = gh.Ptr(c.StartLine), gh.Ptr("RIGHT")
		}
		req.Comments = append(req.Comments, dc)
	}
	resp, err := h.createReview(ctx, pr, req, marker)
	if err == nil {
		return nil
	}
	if resp == nil || resp.StatusCode != http.StatusUnprocessableEntity {
		return fmt.Errorf("posting review: %w", err)
	}
	// GitHub refused a comment position: post the findings in the review
	// body rather than lose them.
	bot.LoggerFrom(ctx).Warn("review comments refused; posting them in the review body", "err", err.Error())
	req.Comments = nil
	req.Body = gh.Ptr(withMarker(bodyWithComments(body, cs), marker))
	if _, err := h.createReview(ctx, pr, req, marker); err != nil {
		return fmt.Errorf("posting review without inline comments: %w", err)
	}
	return nil
}

// bodyWithComments is a review body that carries its inline comments, for
// when GitHub refuses their positions: each under its path and line.
func bodyWithComments(body string, cs []bot.Comment) string {
	var b strings.Builder
	b.WriteString(body + "\n\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "---\n**%s line %d**\n\n%s\n", inert.Code(c.Path), c.Line, c.Body)
	}
	return b.String()
}

// resolveGone resolves the review threads of fixed findings; where that
// fails it replies to the comment once, noting the fix. Failures here are
// logged, not fatal: the review itself is already posted.
func (h *Host) resolveGone(ctx context.Context, pr bot.PullRequest, gone []bot.Posted, replied map[int64]bool, threads map[int64]thread, terr error) {
	log := bot.LoggerFrom(ctx)
	if terr != nil {
		log.Warn("review threads unknown; replying instead of resolving")
	}
	for _, p := range gone {
		id, err := strconv.ParseInt(p.ID, 10, 64)
		if err != nil {
			continue // not an id postedComments wrote
		}
		t, ok := threads[id]
		if ok && t.resolved {
			continue
		}
		if ok {
			if err = h.resolveThread(ctx, t.id); err == nil {
				continue
			}
			log.Warn("cannot resolve review thread; replying instead", "comment", id, "err", err.Error())
		}
		if replied[id] {
			continue
		}
		body := fmt.Sprintf("Fixed in %s: prodready no longer finds this. %s", short(pr.HeadSHA), fixedMarker)
		if _, _, err := h.client.PullRequests.CreateCommentInReplyTo(ctx, repoOwner(pr), repoName(pr), pr.Number, body, id); err != nil {
			log.Warn("cannot reply to fixed comment", "comment", id, "err", err.Error())
		}
	}
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

type thread struct {
	id       string
	resolved bool
}

const threadsQuery = `query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
      }
    }
  }
}`

const resolveMutation = `mutation($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}`

// reviewThreads maps the database id of each thread's first comment to the
// thread (all pages).
func (h *Host) reviewThreads(ctx context.Context, pr bot.PullRequest) (map[int64]thread, error) {
	out := map[int64]thread{}
	var cursor *string
	for {
		var data struct {
			Repository struct {
				PullRequest struct {
					ReviewThreads struct {
						PageInfo struct {
							HasNextPage bool
							EndCursor   string
						}
						Nodes []struct {
							ID         string
							IsResolved bool
							Comments   struct {
								Nodes []struct{ DatabaseID int64 }
							}
						}
					}
				}
			}
		}
		vars := map[string]any{"owner": repoOwner(pr), "name": repoName(pr), "number": pr.Number, "cursor": cursor}
		if err := h.graphql(ctx, threadsQuery, vars, &data); err != nil {
			return nil, fmt.Errorf("listing review threads: %w", err)
		}
		rt := data.Repository.PullRequest.ReviewThreads
		for _, n := range rt.Nodes {
			if len(n.Comments.Nodes) > 0 {
				out[n.Comments.Nodes[0].DatabaseID] = thread{id: n.ID, resolved: n.IsResolved}
			}
		}
		if !rt.PageInfo.HasNextPage {
			return out, nil
		}
		c := rt.PageInfo.EndCursor
		cursor = &c
	}
}

const unresolveMutation = `mutation($id: ID!) {
  unresolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}`

// unresolveThread reopens a resolved review thread.
func (h *Host) unresolveThread(ctx context.Context, id string) error {
	var data json.RawMessage
	return h.graphql(ctx, unresolveMutation, map[string]any{"id": id}, &data)
}

func (h *Host) resolveThread(ctx context.Context, id string) error {
	var data json.RawMessage
	return h.graphql(ctx, resolveMutation, map[string]any{"id": id}, &data)
}

// graphql posts one GraphQL request and decodes its data into out; an
// "errors" answer is an error.
func (h *Host) graphql(ctx context.Context, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("encoding GraphQL request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.graphqlURL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("building GraphQL request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.httpClient.Do(req)
	if err != nil {
		return fmt.Errorf("GraphQL request: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("reading GraphQL answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GraphQL answered %s", resp.Status)
	}
	var ans struct {
		Data   json.RawMessage
		Errors []struct{ Message string }
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return fmt.Errorf("decoding GraphQL answer: %w", err)
	}
	if len(ans.Errors) > 0 {
		msgs := make([]string, len(ans.Errors))
		for i, e := range ans.Errors {
			msgs[i] = e.Message
		}
		return errors.New("GraphQL: " + strings.Join(msgs, "; "))
	}
	if err := json.Unmarshal(ans.Data, out); err != nil {
		return fmt.Errorf("decoding GraphQL data: %w", err)
	}
	return nil
}

// completeCheckRun sends the annotations in batches of 50 (each update
// appends; a batch whose answer was lost is checked on the run before it
// is sent again), then completes the run with an update that carries none,
// which may be repeated. A resumed run's annotations are counted first, so
// that those an earlier attempt sent are not sent twice. A review whose
// check run could not be created (rh.ID 0) has none to complete.
func (h *Host) completeCheckRun(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, r bot.Review) error {
	if rh.ID == 0 {
		bot.LoggerFrom(ctx).Warn("review posted without a check run: it could not be created")
		return nil
	}
	anns := annotations(r.Outside)
	title := r.Title
	if title == "" {
		title = "Review done"
	}
	// The actions offered are named in the summary's last line (the API
	// does not give them back): a press is checked against them.
	actions := h.FixActions(ctx, pr, r.Fixable)
	summary := summaryOffering(r.Summary, actions)
	output := func(batch []*gh.CheckRunAnnotation) *gh.CheckRunOutput {
		return &gh.CheckRunOutput{Title: gh.Ptr(title), Summary: gh.Ptr(summary), Annotations: batch}
	}
	sent := 0
	if rh.Resumed && len(anns) > 0 {
		n, err := h.annotationsOn(ctx, pr, rh.ID)
		if err != nil {
			return err
		}
		sent = min(n, len(anns))
	}
	for sent < len(anns) {
		batch := anns[sent:min(len(anns), sent+maxAnnotationsPerRequest)]
		if err := h.sendAnnotations(ctx, pr, rh.ID, gh.UpdateCheckRunOptions{Name: h.checkName(), Output: output(batch)}, sent+len(batch)); err != nil {
			return err
		}
		sent += len(batch)
	}
	opt := gh.UpdateCheckRunOptions{
		Name:        h.checkName(),
		Output:      output(nil),
		Actions:     actions,
		Status:      gh.Ptr("completed"),
		Conclusion:  gh.Ptr(r.Conclusion),
		CompletedAt: &gh.Timestamp{Time: time.Now()},
	}
	if _, _, err := h.client.Checks.UpdateCheckRun(ctx, repoOwner(pr), repoName(pr), rh.ID, opt); err != nil {
		return fmt.Errorf("updating check run %d: %w", rh.ID, err)
	}
	return nil
}

// annotations turns findings into check-run annotations within GitHub's
// limits (title 255 characters, message 64 KiB).
func annotations(fs []checks.Finding) []*gh.CheckRunAnnotation {
	out := make([]*gh.CheckRunAnnotation, 0, len(fs))
	for _, f := range fs {
		level := "notice"
		switch f.Severity {
		case checks.Error:
			level = "failure"
		case checks.Warning:
			level = "warning"
		}
		a := &gh.CheckRunAnnotation{
			Path:            gh.Ptr(f.File),
			StartLine:       gh.Ptr(f.Line),
			EndLine:         gh.Ptr(f.Line),
			AnnotationLevel: gh.Ptr(level),
			Title:           gh.Ptr(bot.Truncate(f.RuleID, bot.MaxAnnotationTitleChars)),
			Message:         gh.Ptr(bot.Truncate(f.Message, 64<<10-1)),
		}
		if f.Fix != nil && f.Fix.Description != "" {
			a.RawDetails = gh.Ptr(bot.Truncate("Fix: "+f.Fix.Description, 64<<10-1))
		}
		out = append(out, a)
	}
	return out
}
