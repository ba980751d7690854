// Package github is the GitHub adapter: webhook verification and decoding
// into bot.Job, and a bot.Host built on go-github v88 and ghinstallation
// (GitHub App installation tokens), with retries within a time budget and
// respect for primary and secondary rate limits.
package github

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strings"

	"github.com/prodready/prodready/bot"
)

// signature returns the MAC an X-Hub-Signature-256 header ("sha256=<hex>")
// carries, or an error naming what is wrong with the header.
func signature(header string) ([]byte, error) {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return nil, errors.New("no sha256= signature in X-Hub-Signature-256")
	}
	sig, err := hex.DecodeString(hexSig)
	if err != nil || len(sig) != sha256.Size {
		return nil, errors.New("X-Hub-Signature-256 is not a SHA-256 in hex")
	}
	return sig, nil
}

// VerifySignature checks an X-Hub-Signature-256 header ("sha256=<hex>")
// against body in constant time. An empty secret verifies nothing.
func VerifySignature(secret, body []byte, header string) bool {
	if len(secret) == 0 {
		return false
	}
	got, err := signature(header)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// Sign returns the X-Hub-Signature-256 value GitHub sends for body.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
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
	_, err := signature(r.Header.Get("X-Hub-Signature-256"))
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
		got, err := signature(header)
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

// hookEvent is the part of every handled payload we read. Decoding only
// these fields (not go-github's full event types) keeps a field we do not
// use, such as a timestamp in an older format, from failing a delivery.
type hookEvent struct {
	Action       string    `json:"action"`
	Repository   *hookRepo `json:"repository"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	pullRequestFields
	checkFields
	fixFields
}

// Event is a delivery that starts a review.
type Event struct {
	// PR is the pull request to review.
	PR bot.PullRequest
	// Installation is the id of the GitHub App installation that received
	// the delivery: the Host reviewing PR acts as it.
	Installation int64
	// Name is the event and action, e.g. "pull_request.synchronize".
	Name string
	// Rerun is set for a check_run or check_suite "rerequested" (someone
	// pressed Re-run): the review runs again even when the same head and
	// base were reviewed (bot.Job.Rerun).
	Rerun bool
}

// Decode turns a delivery into the review it starts. ok is false for
// events and actions we do not handle (answer 2xx and do nothing); err,
// wrapping bot.ErrBadDelivery, is set for a body that does not parse.
//
// Handled: pull_request (see pull_request.go), check_suite and check_run
// (see check_run.go).
func Decode(event string, body []byte) (ev Event, ok bool, err error) {
	var pick func(e *hookEvent) (hookPR, bool, error)
	switch event {
	case "pull_request":
		pick = (*hookEvent).pullRequest
	case "check_suite":
		pick = (*hookEvent).checkSuite
	case "check_run":
		pick = (*hookEvent).checkRun
	default:
		return Event{}, false, nil
	}
	var e hookEvent
	if err := json.Unmarshal(body, &e); err != nil {
		return Event{}, false, fmt.Errorf("%w: decoding %s event: %w", bot.ErrBadDelivery, event, err)
	}
	if e.Repository == nil || e.Installation == nil {
		return Event{}, false, nil
	}
	p, ok, err := pick(&e)
	if err != nil || !ok {
		return Event{}, false, err
	}
	if p.Base.Repo != nil && p.Base.Repo.FullName != "" && p.Base.Repo.FullName != e.Repository.FullName {
		// A check suite can name a pull request into another repository
		// (from a fork): that review belongs to the other repository's events.
		return Event{}, false, nil
	}
	pr, ok := p.pullRequest(e.Repository)
	if !ok || e.Installation.ID == 0 {
		return Event{}, false, nil
	}
	return Event{PR: pr, Installation: e.Installation.ID, Name: event + "." + e.Action, Rerun: event != "pull_request"}, true, nil
}
