// Package pullreq names what a review is of and how a delivery that names
// none fails: the pull request as its host identifies it, and
// ErrBadDelivery. It imports only the standard library, so that the hosts'
// webhook decoders, which produce both, are fuzzed with a few dozen
// packages instead of the review pipeline's hundreds; package bot knows
// them by the same names.
package pullreq

import "errors"

// PullRequest identifies one pull request (GitHub) or merge request (GitLab)
// at one push.
type PullRequest struct {
	// Host is "github" or "gitlab".
	Host string
	// Repo is the repository's full name as its host spells it:
	// "owner/name" on GitHub, the project's full path (group/sub/project)
	// on GitLab.
	Repo string
	// RepoID is the host's numeric id of the repository (GitHub's
	// repository id, GitLab's project id), 0 when the event did not carry
	// it; an adapter that can address the repository by id prefers it.
	RepoID int64
	// Number is the PR number or the MR iid.
	Number int
	// BaseSHA is the commit the diff is taken against (GitHub base.sha,
	// GitLab diff_refs.base_sha); HeadSHA is the pushed commit reviewed.
	// Whatever else a host needs to address the diff (GitLab's start_sha)
	// its adapter looks up itself.
	BaseSHA, HeadSHA string
	BaseRef, HeadRef string
	Draft            bool
	// Fork is true when the head lives in another repository.
	Fork bool
	// HeadRepoID is the host's id of the repository the head branch lives
	// in when it is another (a fork: GitLab's source_project_id), 0 when
	// unknown or the same.
	HeadRepoID int64
	// URL is the PR's web address, for logs and summaries.
	URL string
}

// ErrBadDelivery is what an Intake's Decode wraps for a verified delivery
// whose body is not what its event says (answered 400).
var ErrBadDelivery = errors.New("malformed delivery")
