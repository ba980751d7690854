// Package bot is the domain root of reviewing: a Job from a webhook or the
// Action, the Host interface every VCS implements, the Reviewer that turns
// findings into one review, diff-line mapping, rendering, fingerprints, the
// queue and the HTTP server. bot imports checks, never vcs.
package bot

import (
	"context"

	"github.com/prodready/prodready/bot/pullreq"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/report"
)

// PullRequest identifies one pull request (GitHub) or merge request (GitLab)
// at one push (pullreq.PullRequest, where the webhook decoders find it).
type PullRequest = pullreq.PullRequest

// ChangedFile is one file a pull request changes.
type ChangedFile struct {
	Path string
	// PreviousPath is set for renames.
	PreviousPath string
	// Status is added, modified, removed or renamed.
	Status string
	// Patch is the file's unified diff (hunks only); empty when the host did
	// not send one (binary or too large): then no line of it is commentable.
	Patch string
	// SHA is the file's blob SHA at the head commit, when the host gives it.
	SHA string
}

// File is one file's content at a commit.
type File struct {
	Path string
	// SHA is the blob SHA (the cache key), when known.
	SHA  string
	Data []byte
	// Unreadable, when set, says why the host could not give the file's
	// content (its blob is gone, over MaxFileBytes, or does not decode):
	// a file the pull request changes gets a yaml-invalid finding with
	// that reason, another is named as not checked, and the review of the
	// rest goes on.
	Unreadable string
	// Skipped, when set, says why the host left the file unread on
	// purpose (SymbolicLink): it is named among the files not checked,
	// and is never a finding.
	Skipped string
}

// SymbolicLink is why a review reads no symbolic link of a tree: its blob
// is the path it links to, not a manifest, and a link may lead anywhere.
// check says so too, in its own words, of a link in a folder it walks.
const SymbolicLink = "a symbolic link: links are not followed (what it links to is checked at its own path)"

// Comment is one inline review comment on the new side of the diff.
type Comment struct {
	Path string
	// StartLine and Line are 1-based lines of the file at head; StartLine
	// equals Line for a one-line comment.
	StartLine, Line int
	// Body is the rendered Markdown, suggestion block and hidden
	// fingerprint marker included.
	Body        string
	Fingerprint string
	// Fingerprints are the fingerprints of every finding the comment
	// covers (one suggestion may fix several); Fingerprint is the first.
	Fingerprints []string
	// Findings are the findings the comment is about, and Suggestion the
	// replacement of lines StartLine..Line it proposes (nil for none): a
	// host whose suggestion syntax differs from GitHub's re-renders Body
	// from them with CommentBodyWith.
	Findings   []checks.Finding
	Suggestion *Suggestion
	// Unchanged is true for a one-line comment on a line the diff shows
	// but does not add: the line above lines the change removed, where a
	// finding about what is now missing goes. Other comments are on added
	// lines.
	Unchanged bool
	// Key is the thread's identity across pushes (ThreadMarker): the
	// fingerprint of its one finding, or a hash of the container it is
	// about.
	Key string
	// Container names the container a thread of several findings is
	// about ("" for a thread about one finding).
	Container string
	// Notes are one-line remarks under the findings: a fix another
	// thread's suggestion carries, a fix not suggested.
	Notes []string
}

// Review is what one push gets: threads on added lines, the findings for
// the summary and annotations, and how they compare with the base.
type Review struct {
	// Comments are the threads to have on the pull request, one per
	// concern (see ThreadBody), at most review.maxComments.
	Comments []Comment
	// Findings are the findings the review reports (inline or not): the
	// new ones, and with review.report touched or all the pre-existing
	// ones of the changed files (all: of every file). The conclusion and
	// the title are theirs.
	Findings []checks.Finding
	// Outside are the reported findings not in a thread: below
	// review.inline, not on an added line, in a file the pull request does
	// not change, or beyond the cap. They become annotations.
	Outside []checks.Finding
	// New are the findings no finding of the base has the identity of,
	// wherever they are; Fixed the base's findings whose identity is gone
	// at head; PreExisting the head's findings in changed files that the
	// base has too.
	New, Fixed, PreExisting []checks.Finding
	// Elsewhere is set when some New or Fixed findings are in files the
	// pull request does not change: objects its change to a policy, a
	// binding, params, a CRD or another object reaches.
	Elsewhere bool
	// Fixable are the reported findings in files the pull request changes
	// that have a fix: what Apply fixes and /prodready fix commit (an
	// Applier whose Scope is Reviewer.ReportedScope).
	Fixable []checks.Finding
	// Beyond are the findings of the threads over review.maxComments.
	Beyond []checks.Finding
	// IgnoredByPR are the findings the ignores the pull request adds
	// silence.
	IgnoredByPR []IgnoredByPR
	// ReportMode is review.report; BaseChecked is false when the base
	// could not be compared (no base commit): then every finding is new.
	ReportMode  string
	BaseChecked bool
	// PR is the pull request reviewed (for links).
	PR PullRequest
	// Summary is the Markdown summary (counts, new findings by file,
	// fixed ones, ignores the pull request adds, files not checked).
	Summary string
	// Conclusion is "success", "failure" or "neutral".
	Conclusion string
	// Title is a one-line result, e.g. "2 new errors, 3 new warnings".
	Title string
	// Body is the review's top-level text: one line.
	Body string
	// Fingerprints holds the fingerprint of every finding at head: a
	// posted thread none of whose fingerprints is in it is fixed.
	Fingerprints FingerprintSet
	// NotChecked are the files the pull request changes that were read but
	// not checked, and the files of the charts and overlays it affects that
	// rendered to no object or were not loaded, with why.
	NotChecked []report.NotChecked
	// Files and Objects count what the review's run at head read and
	// checked (the whole repository's manifests and the affected renders'
	// documents, as check counts them), for a report's summary line.
	Files, Objects int
}

// Host is what a VCS adapter implements. ctx is first on every call; every
// method may be retried by the caller only where it says so.
type Host interface {
	// ChangedFiles lists the files the pull request changes, with patches.
	ChangedFiles(ctx context.Context, pr PullRequest) ([]ChangedFile, error)
	// ReadFile returns one file at ref, or (nil, nil) when it does not exist.
	ReadFile(ctx context.Context, pr PullRequest, ref, path string) ([]byte, error)
	// Manifests returns the files at ref that want picks, with as few API
	// calls as the host allows: want is called once, with the path of every
	// regular file of the tree at ref (slash-separated repository paths), so
	// it can pick a chart's or overlay's files by what else the tree holds.
	// cache holds contents by blob SHA across pushes.
	Manifests(ctx context.Context, pr PullRequest, ref string, want Want, cache BlobCache) ([]File, error)
	// StartReview marks the review as running (a check run in_progress, a
	// pending commit status) and returns a handle for Finish.
	StartReview(ctx context.Context, pr PullRequest) (ReviewHandle, error)
	// Publish posts the review: inline comments not already posted (by
	// fingerprint), resolves threads whose finding is gone, and finishes the
	// check run or commit status with the review's conclusion.
	Publish(ctx context.Context, pr PullRequest, h ReviewHandle, r Review) error
	// Fail finishes a started review with a clear failure message (never
	// leaving it running).
	Fail(ctx context.Context, pr PullRequest, h ReviewHandle, message string) error
}

// Wrapper is a Host that wraps another to change some of its calls (a
// durable queue's guard around publishing). Unwrap returns the host it
// wraps, so that what the wrapped host can do beyond Host (look up a merge
// base, resolve a pull request, commit fixes) is still found.
type Wrapper interface {
	Unwrap() Host
}

// As reports whether host, or a host it wraps (Wrapper), is a T, and
// returns the outermost that is: a wrapper's own methods win over those
// of the host inside it.
func As[T any](host Host) (T, bool) {
	for depth := 0; host != nil && depth < 8; depth++ {
		if t, ok := host.(T); ok {
			return t, true
		}
		w, ok := host.(Wrapper)
		if !ok {
			break
		}
		host = w.Unwrap()
	}
	var zero T
	return zero, false
}

// Want picks, from the paths of every file of a tree, the files to load: it
// returns the set of them. A path it does not return is not loaded.
type Want func(paths []string) map[string]bool

// WantEach is the Want that picks each path keep accepts on its own.
func WantEach(keep func(path string) bool) Want {
	return func(paths []string) map[string]bool {
		// The map sized once, for the paths kept: grown, it was 2.5 MB
		// of a push at 50,000 objects (12,500 files).
		var kept []string
		for _, p := range paths {
			if keep(p) {
				kept = append(kept, p)
			}
		}
		out := make(map[string]bool, len(kept))
		for _, p := range kept {
			out[p] = true
		}
		return out
	}
}

// ReviewHandle is a host's reference to a started review.
type ReviewHandle struct {
	// ID is the host's id of what StartReview created (a GitHub check run
	// id), 0 when the host keeps none (GitLab's commit status) or when it
	// could not be created (then the review is posted without it).
	ID int64
	// Resumed is true when the review goes on in what an earlier attempt
	// of it started (a check run found in progress on the head): that
	// attempt may have published part of it, so Publish first looks for
	// what is already there and adds only what is missing.
	Resumed bool
}

// StaleEnder is a Host that can end a review a stopped replica left
// running: the durable queue's sweep calls it for a job no replica works
// on any more.
type StaleEnder interface {
	// EndStale completes the review h started on pr (h.ID 0: the bot's
	// own in-progress check runs or pending statuses on pr's head) with
	// message, unless it is already complete. It reports whether it
	// ended one.
	EndStale(ctx context.Context, pr PullRequest, h ReviewHandle, message string) (bool, error)
}

// BlobCache keeps file contents by blob SHA, bounded in size.
type BlobCache interface {
	Get(sha string) ([]byte, bool)
	Put(sha string, data []byte)
}
