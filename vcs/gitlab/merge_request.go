package gitlab

import (
	"fmt"

	"github.com/prodready/prodready/bot"
)

// mergeRequestEvent is the part of a Merge Request Hook payload the bot
// reads.
type mergeRequestEvent struct {
	ObjectKind string `json:"object_kind"`
	Project    struct {
		ID                int64  `json:"id"`
		PathWithNamespace string `json:"path_with_namespace"`
	} `json:"project"`
	Attrs struct {
		IID             int    `json:"iid"`
		Action          string `json:"action"`
		OldRev          string `json:"oldrev"`
		State           string `json:"state"`
		TargetBranch    string `json:"target_branch"`
		SourceBranch    string `json:"source_branch"`
		SourceProjectID int64  `json:"source_project_id"`
		TargetProjectID int64  `json:"target_project_id"`
		Draft           bool   `json:"draft"`
		WorkInProgress  bool   `json:"work_in_progress"`
		URL             string `json:"url"`
		LastCommit      struct {
			ID string `json:"id"`
		} `json:"last_commit"`
	} `json:"object_attributes"`
}

// review returns the merge request to review and the action that asks for
// it: open, reopen, or update with oldrev (a new push). ok is false for
// other actions and for merge requests already closed or merged; err, which
// wraps bot.ErrBadDelivery, for a payload that is no merge request.
func (ev *mergeRequestEvent) review() (pr bot.PullRequest, action string, ok bool, err error) {
	a := ev.Attrs
	if ev.ObjectKind != "merge_request" || ev.Project.ID == 0 || a.IID == 0 || a.LastCommit.ID == "" {
		return bot.PullRequest{}, "", false, fmt.Errorf("%w: not a merge request payload", bot.ErrBadDelivery)
	}
	switch {
	case a.State == "closed" || a.State == "merged":
		return bot.PullRequest{}, "", false, nil
	case a.Action == "open", a.Action == "reopen":
	case a.Action == "update" && a.OldRev != "":
	default:
		return bot.PullRequest{}, "", false, nil
	}
	return bot.PullRequest{
		Host:    "gitlab",
		Repo:    ev.Project.PathWithNamespace,
		RepoID:  ev.Project.ID,
		Number:  a.IID,
		HeadSHA: a.LastCommit.ID,
		BaseRef: a.TargetBranch,
		HeadRef: a.SourceBranch,
		Draft:   a.Draft || a.WorkInProgress,
		Fork:    a.SourceProjectID != 0 && a.TargetProjectID != 0 && a.SourceProjectID != a.TargetProjectID,
		URL:     a.URL,
	}, a.Action, true, nil
}
