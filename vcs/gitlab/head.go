package gitlab

import (
	"context"

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/prodready/prodready/bot"
)

var _ bot.HeadChecker = (*Host)(nil)

// HeadSHA is the merge request's head commit now.
func (h *Host) HeadSHA(ctx context.Context, pr bot.PullRequest) (string, error) {
	return h.currentHead(ctx, pr)
}

// Supersede ends the commit status of pr's head canceled, naming the push
// that replaced it.
func (h *Host) Supersede(ctx context.Context, pr bot.PullRequest, _ bot.ReviewHandle, head string) error {
	return h.setStatus(ctx, pr, gl.Canceled, superseded(head))
}
