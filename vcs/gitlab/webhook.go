package gitlab

import (
	"fmt"
	"net/http"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/vcs/gitlab/internal/hook"
)

// Intake is GitLab's side of a webhook delivery (a bot.Intake): the
// X-Gitlab-Token header, compared with the secret in constant time before
// the body is read, and the review a merge request event starts (both read
// by package hook).
//
// Redeliveries (same Idempotency-Key, else X-Gitlab-Event-UUID) run once;
// without either, one review per project, merge request and head commit.
type Intake struct {
	// API is the Host that reads the merge requests and publishes their
	// reviews.
	API bot.Host
}

var _ bot.Intake = Intake{}

// Host is "gitlab".
func (Intake) Host() string { return "gitlab" }

// Event is "merge_request" for a Merge Request Hook, "system" for a system
// hook (whose kind is in its body), else "other".
func (Intake) Event(r *http.Request) string {
	switch r.Header.Get("X-Gitlab-Event") {
	case "Merge Request Hook":
		return "merge_request"
	case "System Hook":
		return "system"
	case "Note Hook":
		return "note"
	}
	return "other"
}

// VerifyHeader compares X-Gitlab-Token with secret in constant time.
func (Intake) VerifyHeader(r *http.Request, secret []byte) error {
	return hook.VerifyToken(r.Header.Get("X-Gitlab-Token"), secret)
}

// VerifyBody is nil: GitLab signs nothing beyond the token.
func (Intake) VerifyBody(*http.Request, []byte, []byte) error { return nil }

// Decode returns the review a merge request event (or a system hook's
// merge request event) starts (hook.DecodeMergeRequest); other events
// start none.
func (in Intake) Decode(r *http.Request, body []byte) ([]bot.Job, error) {
	event := in.Event(r)
	if event == "other" {
		return nil, nil
	}
	if event == "note" {
		return in.decodeNote(r, body) // a /prodready fix command (fix.go)
	}
	pr, action, ok, err := hook.DecodeMergeRequest(event == "system", body)
	if err != nil || !ok {
		return nil, err
	}
	delivery := r.Header.Get("Idempotency-Key")
	if delivery == "" {
		delivery = r.Header.Get("X-Gitlab-Event-UUID")
	}
	if delivery == "" {
		delivery = fmt.Sprintf("%d!%d@%s", pr.RepoID, pr.Number, pr.HeadSHA)
	}
	return []bot.Job{{DeliveryID: "gitlab:" + delivery, Event: "merge_request." + action, PR: pr, Host: in.API}}, nil
}
