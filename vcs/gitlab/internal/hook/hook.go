// Package hook reads GitLab's webhook deliveries: the X-Gitlab-Token
// header, and the merge request a Merge Request Hook (or a system hook's
// merge request event) asks to review (package gitlab's Intake hands these
// to bot.Webhook). It imports only the standard library and bot/pullreq, so
// its fuzz target instruments a few dozen packages, not the adapter's 900.
package hook

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/prodready/prodready/bot/pullreq"
)

// VerifyToken compares an X-Gitlab-Token header with secret in constant
// time (bot.Webhook refuses every delivery before it when there is no
// secret).
func VerifyToken(header string, secret []byte) error {
	if subtle.ConstantTimeCompare([]byte(header), secret) != 1 {
		return errors.New("invalid X-Gitlab-Token")
	}
	return nil
}

// DecodeMergeRequest returns the merge request a Merge Request Hook's body
// (with system, a system hook's) asks to review and the action that asks
// for it. ok is false for a system hook of another kind and for actions
// and states that start no review; err, wrapping pullreq.ErrBadDelivery,
// is set for a body that does not parse or is no merge request.
func DecodeMergeRequest(system bool, body []byte) (pr pullreq.PullRequest, action string, ok bool, err error) {
	var ev MergeRequestEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return pullreq.PullRequest{}, "", false, fmt.Errorf("%w: %w", pullreq.ErrBadDelivery, err)
	}
	if system && ev.ObjectKind != "merge_request" {
		return pullreq.PullRequest{}, "", false, nil
	}
	return ev.Review()
}

// MergeRequestEvent is the part of a Merge Request Hook payload the bot
// reads.
type MergeRequestEvent struct {
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

// Review returns the merge request to review and the action that asks for
// it: open, reopen, or update with oldrev (a new push). ok is false for
// other actions and for merge requests already closed or merged; err, which
// wraps pullreq.ErrBadDelivery, for a payload that is no merge request.
func (ev *MergeRequestEvent) Review() (pr pullreq.PullRequest, action string, ok bool, err error) {
	a := ev.Attrs
	if ev.ObjectKind != "merge_request" || ev.Project.ID == 0 || a.IID == 0 || a.LastCommit.ID == "" {
		return pullreq.PullRequest{}, "", false, fmt.Errorf("%w: not a merge request payload", pullreq.ErrBadDelivery)
	}
	switch {
	case a.State == "closed" || a.State == "merged":
		return pullreq.PullRequest{}, "", false, nil
	case a.Action == "open", a.Action == "reopen":
	case a.Action == "update" && a.OldRev != "":
	default:
		return pullreq.PullRequest{}, "", false, nil
	}
	return pullreq.PullRequest{
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
