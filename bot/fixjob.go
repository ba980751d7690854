package bot

import (
	"context"
	"errors"
	"strings"
)

// FixMode says which fixes a request commits.
type FixMode string

const (
	// FixExact commits the exact fixes only: GitHub's "Apply fixes",
	// GitLab's /prodready fix (prodready fix without --all).
	FixExact FixMode = "exact"
	// FixAll commits the starting points too: "Apply all, starting points
	// too", /prodready fix all (prodready fix --all).
	FixAll FixMode = "all"
)

// FixRequest is one request to commit the fixes of a pull request: a press
// of a check run's requested action, or a /prodready fix note. A Job whose
// Fix is set runs it (Applier.Run) instead of a review.
type FixRequest struct {
	// Mode says which fixes to commit.
	Mode FixMode
	// Head is the commit the request was made at: the check run's head_sha,
	// the merge request's last commit when the note was written. The fixes
	// are computed there and the branch is moved only from there; a branch
	// that moved since is refused.
	Head string
	// Press identifies the request (the check run and its action; the
	// note): it is written in the commit as a trailer, so that a second
	// delivery of the same press finding the branch at that commit says so
	// instead of committing again.
	Press string
	// By is who asked (their login), named in the commit message; ByID is
	// their user id on the host, when the host checks who may ask
	// (FixAuthorizer).
	By   string
	ByID int64
	// Thread is where the host answers: the check run id on GitHub, the
	// discussion id of the note on GitLab.
	Thread string
	// Refusal, when set, is a refusal decided on delivery (a GitLab note by
	// a user below Developer): the job only posts it.
	Refusal string
}

// FixesTrailer is the trailer key of a fix commit that names its request.
const FixesTrailer = "Prodready-Fix"

// Committer is the part of a Host that commits fixes to a pull request's
// head branch and answers a fix request. Nothing is ever force-pushed.
type Committer interface {
	// HeadCommit returns the commit the pull request's head branch points
	// at now.
	HeadCommit(ctx context.Context, pr PullRequest) (HeadCommit, error)
	// CommitFixes commits c to the pull request's head branch as one
	// commit whose parent is c.Parent, moving the branch only if it still
	// points at c.Parent, and returns the new commit's SHA. Its errors wrap
	// ErrHeadMoved, ErrBranchProtected, ErrNoPermission or ErrFork when the
	// host refuses for that reason.
	CommitFixes(ctx context.Context, pr PullRequest, c FixCommit) (string, error)
	// ReportFixes posts r, the outcome of req, where req asks for it: the
	// check run's output on GitHub, a reply in the note's thread on GitLab.
	ReportFixes(ctx context.Context, pr PullRequest, req FixRequest, r FixReport) error
}

// FixAuthorizer is a Host that checks a fix request before anything is
// computed or committed (GitLab: who asked is at least Developer on the
// project; GitHub: the check run pressed is the bot's, offered the action
// pressed, and who pressed has write access); Run asks it first. An error
// wrapping ErrNotAllowed is logged and answered as a refusal with its text
// (where the host has a place of the bot's to say it); any other error
// fails the job, which is tried again.
type FixAuthorizer interface {
	AuthorizeFix(ctx context.Context, pr PullRequest, req FixRequest) error
}

// ErrNotAllowed is what a FixAuthorizer wraps for a user who may not ask
// for fixes.
var ErrNotAllowed = errors.New("not allowed to ask for fixes")

// Resolver is a Host that fills in a pull request from the host's own
// record of it (a requested action's payload names little of it; GitLab's
// base commit is not in a webhook): Apply resolves the pull request first
// when its host is one.
type Resolver interface {
	Resolve(ctx context.Context, pr PullRequest) (PullRequest, error)
}

// HeadCommit is the commit a branch points at.
type HeadCommit struct {
	SHA     string
	Parents []string
	Message string
}

// FixCommit is the one commit a fix request makes.
type FixCommit struct {
	// Branch is the head branch; Parent the commit it must still point at.
	Branch, Parent string
	// Message lists the findings fixed, one line each, and ends with the
	// FixesTrailer naming the request.
	Message string
	// Files are the files the fixes change, with their new content.
	Files []File
}

// Errors a Committer's CommitFixes wraps when the host refuses the commit.
var (
	// ErrHeadMoved: the branch no longer points at the commit the fixes
	// were computed at (a push raced the request).
	ErrHeadMoved = errors.New("the branch moved since the fixes were computed")
	// ErrBranchProtected: the branch's protection refuses the push.
	ErrBranchProtected = errors.New("the branch is protected")
	// ErrNoPermission: the bot's credentials may not push (GitHub: the App
	// lacks Contents: write; GitLab: the token's user is below Developer).
	ErrNoPermission = errors.New("the bot may not push to this repository")
	// ErrFork: the head branch is in a fork the bot cannot push to.
	ErrFork = errors.New("the pull request comes from a fork the bot cannot push to")
)

// FixOutcome says how a fix request ended.
type FixOutcome string

// The outcomes of a fix request.
const (
	// FixCommitted: one commit was pushed.
	FixCommitted FixOutcome = "committed"
	// FixNothing: no fix applies (none in scope, or none that settles).
	FixNothing FixOutcome = "nothing"
	// FixRefused: the commit was refused, Reason says why.
	FixRefused FixOutcome = "refused"
	// FixDuplicate: the branch is already at the commit this request made
	// (a second delivery of the same press); nothing is posted.
	FixDuplicate FixOutcome = "duplicate"
	// FixFailed: an error stopped the request.
	FixFailed FixOutcome = "failed"
)

// FixReport is what a fix request did, rendered for the host to post.
type FixReport struct {
	Outcome FixOutcome
	// Commit is the new commit (FixCommitted, FixDuplicate).
	Commit string
	// Title is one line; Text is Markdown (the fixes, the ones left out
	// and why, and for a refusal with fixes the patch as a diff block).
	Title, Text string
	// Patch is the unified diff of the fixes (git apply takes it), when
	// they were computed.
	Patch string
}

// Dispatch returns the worker pool's handler: a job whose Fix is set runs
// apply, any other review (Reviewer.Run).
func Dispatch(review, apply func(ctx context.Context, job Job) error) func(ctx context.Context, job Job) error {
	return func(ctx context.Context, job Job) error {
		if job.Fix != nil {
			return apply(ctx, job)
		}
		return review(ctx, job)
	}
}

// fixTrailerValue returns the value of msg's FixesTrailer line, if any.
func fixTrailerValue(msg string) (string, bool) {
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), FixesTrailer+": "); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// madeBy reports whether c is the commit req made: its only parent is
// req.Head and its trailer names req.Press.
func (c HeadCommit) madeBy(req FixRequest) bool {
	v, ok := fixTrailerValue(c.Message)
	return ok && req.Press != "" && v == req.Press && len(c.Parents) == 1 && c.Parents[0] == req.Head
}
