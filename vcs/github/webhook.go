// Package github is the GitHub adapter: webhook verification and decoding
// into bot.Job, and a bot.Host built on go-github v88 and ghinstallation
// (GitHub App installation tokens), with retries within a time budget and
// respect for primary and secondary rate limits.
package github

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/vcs/github/internal/hook"
)

// The signature check and the decoding of review events are package
// hook's (fuzzed there, with few imports); these are their names here.

// VerifySignature checks an X-Hub-Signature-256 header ("sha256=<hex>")
// against body in constant time. An empty secret verifies nothing.
func VerifySignature(secret, body []byte, header string) bool {
	return hook.VerifySignature(secret, body, header)
}

// Sign returns the X-Hub-Signature-256 value GitHub sends for body.
func Sign(secret, body []byte) string { return hook.Sign(secret, body) }

// Event is a delivery that starts a review (hook.Event).
type Event = hook.Event

// Decode turns a delivery into the review it starts (hook.Decode): ok is
// false for events and actions not handled; err, wrapping
// bot.ErrBadDelivery, is set for a body that does not parse.
func Decode(event string, body []byte) (ev Event, ok bool, err error) {
	return hook.Decode(event, body)
}

// DecodePullRequest decodes the pull request a pull_request or
// pull_request_target payload carries, whatever its action, as a workflow
// run reads its event (hook.DecodePullRequest).
func DecodePullRequest(body []byte) (pr bot.PullRequest, found bool, err error) {
	return hook.DecodePullRequest(body)
}

// Intake is GitHub's side of a webhook delivery (a bot.Intake): the
// X-Hub-Signature-256 HMAC of the body, and the reviews Decode names, each
// acted on as the installation that received the delivery.
type Intake struct {
	// HostFor returns the Host acting as the installation.
	HostFor func(installationID int64) (bot.Host, error)
}

var _ bot.StreamingIntake = Intake{}

// Host is "github".
func (Intake) Host() string { return "github" }

// Event is the X-GitHub-Event header when it is an event GitHub sends to
// an app, else "other".
func (Intake) Event(r *http.Request) string {
	switch event := r.Header.Get("X-GitHub-Event"); event {
	case "pull_request", "check_suite", "check_run", "installation",
		"installation_repositories", "installation_target", "ping", "push",
		"pull_request_review", "pull_request_review_comment",
		"pull_request_review_thread", "issues", "issue_comment", "create",
		"delete", "release", "status", "workflow_run", "workflow_job",
		"github_app_authorization":
		return event
	}
	return "other"
}

// VerifyHeader refuses a delivery whose X-Hub-Signature-256 is missing or
// malformed before its body is read.
func (Intake) VerifyHeader(r *http.Request, _ []byte) error {
	_, err := hook.Signature(r.Header.Get("X-Hub-Signature-256"))
	return err
}

// VerifyBody checks the X-Hub-Signature-256 HMAC of body.
func (Intake) VerifyBody(r *http.Request, secret, body []byte) error {
	if !VerifySignature(secret, body, r.Header.Get("X-Hub-Signature-256")) {
		return errors.New("X-Hub-Signature-256 does not match the body")
	}
	return nil
}

// BodyVerifier returns the HMAC the body streams into, and the check of
// X-Hub-Signature-256 against it once the body is read: the body is read
// once, and a body that does not verify is never decoded.
func (Intake) BodyVerifier(r *http.Request, secret []byte) (io.Writer, func() error) {
	var mac hash.Hash = hmac.New(sha256.New, secret)
	header := r.Header.Get("X-Hub-Signature-256")
	return mac, func() error {
		got, err := hook.Signature(header)
		if err != nil {
			return err
		}
		if len(secret) == 0 || !hmac.Equal(got, mac.Sum(nil)) {
			return errors.New("X-Hub-Signature-256 does not match the body")
		}
		return nil
	}
}

// Decode returns the review the delivery starts, if any, keyed by
// X-GitHub-Delivery.
func (in Intake) Decode(r *http.Request, body []byte) ([]bot.Job, error) {
	if jobs, ok, err := in.decodeFix(r, body); ok || err != nil {
		return jobs, err // a press of a requested action (fix.go)
	}
	ev, ok, err := Decode(r.Header.Get("X-GitHub-Event"), body)
	if err != nil || !ok {
		return nil, err
	}
	host, err := in.HostFor(ev.Installation)
	if err != nil {
		return nil, fmt.Errorf("acting as installation %d: %w", ev.Installation, err)
	}
	return []bot.Job{{DeliveryID: r.Header.Get("X-GitHub-Delivery"), Event: ev.Name, PR: ev.PR, Installation: ev.Installation, Host: host,
		Rerun: ev.Rerun}}, nil
}
