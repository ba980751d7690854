// Package local is a bot.Host over a git checkout: it reads the diff, files
// and trees with the git binary and publishes nowhere (the review is kept
// for the caller to print). `prodready review --base <ref>` uses it.
package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"

	"github.com/prodready/prodready/bot"
)

// Host reviews the range Base...HEAD of the git checkout at Dir.
type Host struct {
	// Dir is a folder inside the checkout ("" for the current one).
	Dir string
	// Published is the review Publish received; Failure is Fail's message.
	Published *bot.Review
	Failure   string
}

var _ bot.Host = (*Host)(nil)

// git runs git in h.Dir and returns its standard output.
func (h *Host) git(ctx context.Context, args ...string) ([]byte, error) {
	return Git(ctx, h.Dir, args...)
}

// Git runs git in dir ("" for the current folder) and returns its standard
// output; its error carries git's own message.
func Git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.Bytes(), nil
}

// Uncommitted lists the files of the checkout whose changes are not
// committed, staged or not, and the files git does not track and does not
// ignore, sorted: what a review of base...HEAD leaves out.
func (h *Host) Uncommitted(ctx context.Context) ([]string, error) {
	out, err := h.git(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var paths []string
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		e := fields[i]
		if len(e) < 4 {
			continue
		}
		paths = append(paths, e[3:])
		if e[0] == 'R' || e[0] == 'C' {
			i++ // a rename's or copy's old path follows
		}
	}
	sort.Strings(paths)
	return paths, nil
}

// PullRequest describes base...HEAD: BaseSHA is the merge base of base and
// HEAD (what a pull request's diff is taken against), HeadSHA is HEAD.
func (h *Host) PullRequest(ctx context.Context, base string) (bot.PullRequest, error) {
	mb, err := h.git(ctx, "merge-base", base, "HEAD")
	if err != nil {
		return bot.PullRequest{}, fmt.Errorf("finding the merge base of %s and HEAD: %w", base, err)
	}
	head, err := h.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return bot.PullRequest{}, fmt.Errorf("reading HEAD: %w", err)
	}
	return bot.PullRequest{Host: "local", BaseSHA: strings.TrimSpace(string(mb)), HeadSHA: strings.TrimSpace(string(head)), BaseRef: base, HeadRef: "HEAD"}, nil
}

// ChangedFiles parses `git diff BaseSHA HeadSHA` into files with patches.
func (h *Host) ChangedFiles(ctx context.Context, pr bot.PullRequest) ([]bot.ChangedFile, error) {
	out, err := h.git(ctx, "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "-U3", "-M", pr.BaseSHA, pr.HeadSHA)
	if err != nil {
		return nil, fmt.Errorf("diffing: %w", err)
	}
	return ParseGitDiff(string(out)), nil
}

// ParseGitDiff splits the output of `git diff` into changed files.
func ParseGitDiff(out string) []bot.ChangedFile {
	var files []bot.ChangedFile
	var cur *bot.ChangedFile
	var patch []string
	inHunks := false
	flush := func() {
		if cur != nil {
			cur.Patch = strings.Join(patch, "\n")
			files = append(files, *cur)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "diff --git ") {
			flush()
			cur, patch, inHunks = &bot.ChangedFile{Status: "modified"}, nil, false
			// "diff --git a/x b/x": the b/ side, trusted only until ---/+++ say more.
			if i := strings.LastIndex(l, " b/"); i >= 0 {
				cur.Path = l[i+3:]
			}
			continue
		}
		if cur == nil {
			continue
		}
		if inHunks || strings.HasPrefix(l, "@@") {
			inHunks = true
			patch = append(patch, l)
			continue
		}
		switch {
		case strings.HasPrefix(l, "new file mode"):
			cur.Status = "added"
		case strings.HasPrefix(l, "deleted file mode"):
			cur.Status = "removed"
		case strings.HasPrefix(l, "rename from "):
			cur.Status, cur.PreviousPath = "renamed", strings.TrimPrefix(l, "rename from ")
		case strings.HasPrefix(l, "rename to "):
			cur.Path = strings.TrimPrefix(l, "rename to ")
		case strings.HasPrefix(l, "+++ b/"):
			cur.Path = strings.TrimPrefix(l, "+++ b/")
		case strings.HasPrefix(l, "--- a/") && cur.Status == "removed":
			cur.Path = strings.TrimPrefix(l, "--- a/")
		}
	}
	flush()
	for i := range files {
		files[i].Patch = strings.TrimSuffix(files[i].Patch, "\n")
	}
	return files
}

// ReadFile returns path at ref (`git show ref:path`), nil when absent.
func (h *Host) ReadFile(ctx context.Context, pr bot.PullRequest, ref, path string) ([]byte, error) {
	if _, err := h.git(ctx, "cat-file", "-e", ref+":"+path); err != nil {
		if _, rerr := h.git(ctx, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); rerr != nil {
			return nil, fmt.Errorf("reading %s: unknown revision %s", path, ref)
		}
		return nil, nil
	}
	out, err := h.git(ctx, "show", ref+":"+path)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", path, ref, err)
	}
	return out, nil
}

// Manifests lists the tree at ref and reads every blob want picks (cached
// by SHA). A symbolic link want picks is not read: it is returned Skipped
// (bot.SymbolicLink).
func (h *Host) Manifests(ctx context.Context, pr bot.PullRequest, ref string, want bot.Want, cache bot.BlobCache) ([]bot.File, error) {
	out, err := h.git(ctx, "ls-tree", "-r", "-z", "--full-tree", ref)
	if err != nil {
		return nil, fmt.Errorf("listing files at %s: %w", ref, err)
	}
	type entry struct {
		path, sha string
		link      bool
	}
	var entries []entry
	var paths []string
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta) // mode type sha
		if len(f) != 3 || f[1] != "blob" {
			continue
		}
		entries = append(entries, entry{path, f[2], f[0] == "120000"})
		paths = append(paths, path)
	}
	picked := want(paths)
	var files []bot.File
	for _, e := range entries {
		path, sha := e.path, e.sha
		if !picked[path] {
			continue
		}
		if e.link {
			files = append(files, bot.File{Path: path, SHA: sha, Skipped: bot.SymbolicLink})
			continue
		}
		if cache != nil {
			if data, ok := cache.Get(sha); ok {
				files = append(files, bot.File{Path: path, SHA: sha, Data: data})
				continue
			}
		}
		data, err := h.git(ctx, "cat-file", "blob", sha)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if cache != nil {
			cache.Put(sha, data)
		}
		files = append(files, bot.File{Path: path, SHA: sha, Data: data})
	}
	return files, nil
}

// StartReview does nothing: there is no check run locally.
func (h *Host) StartReview(ctx context.Context, pr bot.PullRequest) (bot.ReviewHandle, error) {
	return bot.ReviewHandle{}, nil
}

// Publish keeps the review in h.Published.
func (h *Host) Publish(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, r bot.Review) error {
	h.Published = &r
	return nil
}

// Fail keeps the message in h.Failure.
func (h *Host) Fail(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, message string) error {
	h.Failure = message
	return nil
}

// ErrNotRepository is returned by Check outside a git checkout.
var ErrNotRepository = errors.New("not inside a git checkout")

// Check verifies that Dir is inside a git work tree.
func (h *Host) Check(ctx context.Context) error {
	out, err := h.git(ctx, "rev-parse", "--is-inside-work-tree")
	if err != nil || strings.TrimSpace(string(out)) != "true" {
		return ErrNotRepository
	}
	return nil
}
