package bot

import "context"

// A HeadChecker is a Host that can tell a pull request's current head and
// end a started review as superseded. A queue uses it just before a
// review publishes: a review of a head that is no longer the pull
// request's posts nothing, and its check run (or commit status) says which
// push replaced it.
type HeadChecker interface {
	// HeadSHA is the pull request's head commit now, as the host's API
	// answers it.
	HeadSHA(ctx context.Context, pr PullRequest) (string, error)
	// Supersede ends the review h of pr (started by StartReview, not
	// published) as superseded by head, never leaving it running.
	Supersede(ctx context.Context, pr PullRequest, h ReviewHandle, head string) error
}
