package github

import (
	"context"
	"fmt"

	"github.com/prodready/prodready/bot"
)

var _ bot.HeadChecker = (*Host)(nil)

// HeadSHA is the pull request's head commit now (GET
// /repos/{owner}/{repo}/pulls/{number}).
func (h *Host) HeadSHA(ctx context.Context, pr bot.PullRequest) (string, error) {
	p, _, err := h.client.PullRequests.Get(ctx, repoOwner(pr), repoName(pr), pr.Number)
	if err != nil {
		return "", fmt.Errorf("getting pull request #%d: %w", pr.Number, err)
	}
	return p.GetHead().GetSHA(), nil
}

// Supersede completes the check run as skipped, naming the push that
// replaced pr's head: that push's own run reports on the pull request.
func (h *Host) Supersede(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, head string) error {
	if rh.ID == 0 {
		return nil
	}
	err := h.completeRun(ctx, pr, rh.ID, "skipped", "Superseded by a newer push",
		fmt.Sprintf("The pull request's head moved on to %s while %s was reviewed: nothing was published for %s, and the newer head is reviewed instead.", short(head), short(pr.HeadSHA), short(pr.HeadSHA)))
	if err != nil {
		return fmt.Errorf("completing check run %d as superseded: %w", rh.ID, err)
	}
	return nil
}
