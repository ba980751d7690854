package ghaction

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	gh "github.com/google/go-github/v88/github"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	ghv "github.com/prodready/prodready/vcs/github"
	"github.com/prodready/prodready/vcs/local"
)

// DefaultFetchDepth is how deep Host fetches the base and head commits
// when the checkout lacks them (actions/checkout's default fetch-depth: 1).
const DefaultFetchDepth = 100

// maxFileBytes skips working-tree files larger than this.
const maxFileBytes = 10 << 20

// Host is the bot.Host of a GitHub Actions run. It reads from the runner's
// git checkout: the diff of the pull request (merge base of base.sha and
// head.sha, to head.sha) with git, fetching the two commits when the
// checkout is shallow and using the pull request files API when even that
// fails; the config at the base commit; the manifests from the working
// tree. It publishes through API (a vcs/github Host authenticated with the
// workflow token): one review and one check run. When the token may not
// write (a fork pull request, or 403 on a write) it publishes nothing,
// records why in Fallback, and the caller shows the findings as
// annotations instead.
type Host struct {
	// Dir is the checkout (GITHUB_WORKSPACE; "" for the current folder).
	Dir string
	// ConfigPath is the config file, relative to the repository root, read
	// at the base commit (checks.ConfigFileName when empty).
	ConfigPath string
	// Paths limits the review to files under these repository-relative
	// folders or files ("." or none: everything).
	Paths []string
	// API publishes the review; nil publishes nowhere.
	API *ghv.Host
	// FetchDepth is the depth of the fallback fetch (DefaultFetchDepth
	// when 0).
	FetchDepth int
	// Notes receives one line per notable step (the fallbacks taken); nil
	// discards them.
	Notes func(msg string)

	// Published is the review Publish received (posted or not).
	Published *bot.Review
	// Failure is the message Fail received.
	Failure string
	// Fallback says why the review was not posted (empty when it was, or
	// when API is nil).
	Fallback string
	// DiffSource says where the diff came from: "git", "git fetch" or "api".
	DiffSource string

	once      sync.Once
	prepErr   error
	mergeBase string // of the pull request's base and head, found by prepare
	git       *local.Host
}

var _ bot.Host = (*Host)(nil)

func (h *Host) note(format string, args ...any) {
	if h.Notes != nil {
		h.Notes(fmt.Sprintf(format, args...))
	}
}

// run runs git in Dir and returns its trimmed standard output.
func (h *Host) run(ctx context.Context, args ...string) (string, error) {
	out, err := local.Git(ctx, h.Dir, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

func (h *Host) hasCommit(ctx context.Context, sha string) bool {
	_, err := h.run(ctx, "cat-file", "-e", sha+"^{commit}")
	return err == nil
}

// prepare makes sure, once, that the checkout has both commits and their
// merge base, fetching them from origin when it does not. Its error means
// git cannot serve the pull request (the API must).
func (h *Host) prepare(ctx context.Context, pr bot.PullRequest) error {
	h.once.Do(func() {
		h.git = &local.Host{Dir: h.Dir}
		if err := h.git.Check(ctx); err != nil {
			h.prepErr = fmt.Errorf("%s: %w", h.dirName(), err)
			return
		}
		if h.hasCommit(ctx, pr.BaseSHA) && h.hasCommit(ctx, pr.HeadSHA) {
			if mb, err := h.run(ctx, "merge-base", pr.BaseSHA, pr.HeadSHA); err == nil {
				h.mergeBase, h.DiffSource = mb, "git"
				return
			}
		}
		depth := h.FetchDepth
		if depth <= 0 {
			depth = DefaultFetchDepth
		}
		h.note("the checkout lacks the history of the pull request (use actions/checkout with fetch-depth: 0); fetching %s and %s with depth %d", short(pr.BaseSHA), short(pr.HeadSHA), depth)
		if _, err := h.run(ctx, "fetch", "--no-tags", "--no-recurse-submodules", fmt.Sprintf("--depth=%d", depth), "origin", pr.BaseSHA, pr.HeadSHA); err != nil {
			h.prepErr = fmt.Errorf("fetching the pull request's commits: %w", err)
			return
		}
		mb, err := h.run(ctx, "merge-base", pr.BaseSHA, pr.HeadSHA)
		if err != nil {
			h.prepErr = fmt.Errorf("no merge base of %s and %s within %d commits: %w", short(pr.BaseSHA), short(pr.HeadSHA), depth, err)
			return
		}
		h.mergeBase, h.DiffSource = mb, "git fetch"
	})
	return h.prepErr
}

func (h *Host) dirName() string {
	if h.Dir == "" {
		return "the current folder"
	}
	return h.Dir
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// Under reports whether the repository path p is under one of Paths.
func (h *Host) Under(p string) bool {
	if len(h.Paths) == 0 {
		return true
	}
	for _, root := range h.Paths {
		root = strings.Trim(path.Clean(filepath.ToSlash(root)), "/")
		if root == "." || root == "" || p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return false
}

// ChangedFiles diffs the merge base of base.sha and head.sha against
// head.sha with git (what GitHub shows), or lists the files with the API
// when git cannot. Files outside Paths are left out.
func (h *Host) ChangedFiles(ctx context.Context, pr bot.PullRequest) ([]bot.ChangedFile, error) {
	var files []bot.ChangedFile
	err := h.prepare(ctx, pr)
	if err == nil {
		files, err = h.git.ChangedFiles(ctx, h.localPR(pr))
	}
	if err != nil {
		if h.API == nil {
			return nil, err
		}
		h.note("git cannot diff the pull request (%v); listing its files with the API", err)
		files, err = h.API.ChangedFiles(ctx, pr)
		if err != nil {
			return nil, err
		}
		h.DiffSource = "api"
	}
	out := files[:0]
	for _, f := range files {
		if h.Under(f.Path) || (f.PreviousPath != "" && h.Under(f.PreviousPath)) {
			out = append(out, f)
		}
	}
	return out, nil
}

// localPR is pr with BaseSHA replaced by the merge base prepare found,
// which is what the pull request's diff is taken against.
func (h *Host) localPR(pr bot.PullRequest) bot.PullRequest {
	if h.mergeBase != "" {
		pr.BaseSHA = h.mergeBase
	}
	return pr
}

// ConfigName is the config file's path in the repository: ConfigPath, or
// checks.ConfigFileName when it is empty. The config's errors name it.
func (h *Host) ConfigName() string {
	if h.ConfigPath == "" {
		return checks.ConfigFileName
	}
	return strings.TrimPrefix(path.Clean(filepath.ToSlash(h.ConfigPath)), "./")
}

// ReadFile reads path at ref with git (the config named by ConfigPath when
// path is checks.ConfigFileName), or with the API when git cannot.
func (h *Host) ReadFile(ctx context.Context, pr bot.PullRequest, ref, p string) ([]byte, error) {
	if p == checks.ConfigFileName {
		p = h.ConfigName()
	}
	err := h.prepare(ctx, pr)
	if err == nil || h.hasCommit(ctx, ref) {
		data, rerr := h.git.ReadFile(ctx, pr, ref, p)
		if rerr == nil {
			return data, nil
		}
		err = rerr
	}
	if h.API == nil {
		return nil, err
	}
	return h.API.ReadFile(ctx, pr, ref, p)
}

// Manifests reads the wanted files under Paths from the working tree, so
// files a previous step generated count as context too. When the checkout
// is not at ref (actions/checkout checks out the pull request's merge
// commit by default) and git has ref, every file that exists at ref is read
// at ref instead: inline comments are placed on ref's lines.
func (h *Host) Manifests(ctx context.Context, pr bot.PullRequest, ref string, want bot.Want, cache bot.BlobCache) ([]bot.File, error) {
	wanted := func(paths []string) map[string]bool {
		under := make([]string, 0, len(paths))
		for _, p := range paths {
			if h.Under(p) {
				under = append(under, p)
			}
		}
		return want(under)
	}
	if ref != "" && ref == pr.BaseSHA && ref != pr.HeadSHA {
		// The base the review compares with: from the history when the
		// checkout has it, else through the API.
		if h.prepare(ctx, pr) == nil {
			return h.git.Manifests(ctx, pr, ref, wanted, cache)
		}
		if h.API != nil {
			return h.API.Manifests(ctx, pr, ref, wanted, cache)
		}
		return nil, fmt.Errorf("reading the base %s: the checkout has no history (fetch-depth: 0) and there is no API token", short(ref))
	}
	files, err := h.workingTree(wanted)
	if err != nil || ref == "" || h.prepare(ctx, pr) != nil {
		return files, err
	}
	head, err := h.run(ctx, "rev-parse", "HEAD")
	if err != nil || head == ref {
		return files, nil
	}
	h.note("the checkout is at %s, not the pull request's head %s: reading the files of the head at the head", short(head), short(ref))
	atRef, err := h.git.Manifests(ctx, pr, ref, wanted, cache)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(atRef))
	for _, f := range atRef {
		seen[f.Path] = true
	}
	for _, f := range files {
		if !seen[f.Path] {
			atRef = append(atRef, f)
		}
	}
	return atRef, nil
}

// WorkingTree reads every file of the checkout's working tree that want
// accepts (slash-separated paths relative to the repository root),
// skipping .git and files over 10 MiB.
func (h *Host) WorkingTree(want func(string) bool) ([]bot.File, error) {
	return h.workingTree(bot.WantEach(want))
}

// workingTree reads the files of the working tree that want picks from
// the paths of all of them. A symbolic link it picks is not read: it is
// returned Skipped (bot.SymbolicLink).
func (h *Host) workingTree(want bot.Want) ([]bot.File, error) {
	type entry struct {
		rel, path string
		link      bool
	}
	var entries []entry
	root := h.Dir
	if root == "" {
		root = "."
	}
	if top, err := h.run(context.Background(), "rev-parse", "--show-toplevel"); err == nil && top != "" {
		root = top
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
			entries = append(entries, entry{rel, p, !d.Type().IsRegular()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the working tree: %w", err)
	}
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.rel
	}
	picked := want(paths)
	var files []bot.File
	for _, e := range entries {
		if !picked[e.rel] {
			continue
		}
		if e.link {
			files = append(files, bot.File{Path: e.rel, Skipped: bot.SymbolicLink})
			continue
		}
		if info, err := os.Stat(e.path); err == nil && info.Size() > maxFileBytes {
			h.note("%s is over %d MiB; not checked", e.rel, maxFileBytes>>20)
			continue
		}
		data, err := os.ReadFile(e.path)
		if err != nil {
			return nil, fmt.Errorf("reading the working tree: reading %s: %w", e.rel, err)
		}
		files = append(files, bot.File{Path: e.rel, Data: data})
	}
	return files, nil
}

// Forbidden reports whether err is GitHub refusing the token (403), e.g.
// "Resource not accessible by integration" for a workflow token without
// the permission or on a fork pull request.
func Forbidden(err error) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden
}

func (h *Host) fallBack(err error) {
	h.Fallback = "the workflow token may not write to this pull request (" + err.Error() + "); grant `pull-requests: write` and `checks: write` in the workflow's `permissions`"
}

// StartReview creates the check run, unless publishing is off. A 403
// switches to the annotation fallback instead of failing.
func (h *Host) StartReview(ctx context.Context, pr bot.PullRequest) (bot.ReviewHandle, error) {
	if h.API == nil || h.Fallback != "" {
		return bot.ReviewHandle{}, nil
	}
	rh, err := h.API.StartReview(ctx, pr)
	if Forbidden(err) {
		h.fallBack(err)
		return bot.ReviewHandle{}, nil
	}
	return rh, err
}

// Publish keeps the review in Published and posts it (review and check
// run). A 403 on the review still completes the check run (without
// comments) and switches to the annotation fallback.
func (h *Host) Publish(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, r bot.Review) error {
	h.Published = &r
	if h.API == nil || h.Fallback != "" {
		return nil
	}
	err := h.API.Publish(ctx, pr, rh, r)
	if !Forbidden(err) {
		return err
	}
	h.fallBack(err)
	if rh.ID == 0 {
		return nil
	}
	bare := r
	bare.Comments = nil
	bare.Summary = r.Summary + "\n\n> " + h.Fallback + ". The findings are in the workflow run's annotations.\n"
	if err := h.API.Publish(ctx, pr, rh, bare); err != nil && !Forbidden(err) {
		return fmt.Errorf("completing the check run after the review was refused: %w", err)
	}
	return nil
}

// Fail ends the check run with message.
func (h *Host) Fail(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, message string) error {
	h.Failure = message
	if h.API == nil || rh.ID == 0 {
		return nil
	}
	return h.API.Fail(ctx, pr, rh, message)
}
