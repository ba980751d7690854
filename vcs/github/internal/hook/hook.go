// Package hook reads GitHub's webhook deliveries: the X-Hub-Signature-256
// HMAC of a body, and the pull request a pull_request, check_suite or
// check_run event asks to review (package github's Intake hands these to
// bot.Webhook). It imports only the standard library and bot/pullreq, so
// its fuzz target instruments a few dozen packages, not the adapter's 900.
package hook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/prodready/prodready/bot/pullreq"
)

// Signature returns the MAC an X-Hub-Signature-256 header ("sha256=<hex>")
// carries, or an error naming what is wrong with the header.
func Signature(header string) ([]byte, error) {
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
	got, err := Signature(header)
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

// Payload is the part of every handled payload we read. Decoding only
// these fields (not go-github's full event types) keeps a field we do not
// use, such as a timestamp in an older format, from failing a delivery.
type Payload struct {
	Action       string `json:"action"`
	Repository   *Repo  `json:"repository"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	PullRequestFields
	CheckFields
	FixFields
}

// FixFields are the fields of a check_run requested_action payload beside
// those every payload has.
type FixFields struct {
	RequestedAction *struct {
		Identifier string `json:"identifier"`
	} `json:"requested_action"`
	Sender *struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"sender"`
}

// Event is a delivery that starts a review.
type Event struct {
	// PR is the pull request to review.
	PR pullreq.PullRequest
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
// wrapping pullreq.ErrBadDelivery, is set for a body that does not parse.
//
// Handled: pull_request (Payload.pullRequest), check_suite and check_run
// (Payload.rerequested).
func Decode(event string, body []byte) (ev Event, ok bool, err error) {
	var pick func(e *Payload) (PR, bool, error)
	switch event {
	case "pull_request":
		pick = (*Payload).pullRequest
	case "check_suite":
		pick = (*Payload).checkSuite
	case "check_run":
		pick = (*Payload).checkRun
	default:
		return Event{}, false, nil
	}
	var e Payload
	if err := json.Unmarshal(body, &e); err != nil {
		return Event{}, false, fmt.Errorf("%w: decoding %s event: %w", pullreq.ErrBadDelivery, event, err)
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
	pr, ok := p.PullRequest(e.Repository)
	if !ok || e.Installation.ID == 0 {
		return Event{}, false, nil
	}
	return Event{PR: pr, Installation: e.Installation.ID, Name: event + "." + e.Action, Rerun: event != "pull_request"}, true, nil
}

// The parts of a pull request, its branches and repositories we read, in
// pull_request payloads and in the pull requests a check names.
type (
	// Repo is a repository as a payload names it.
	Repo struct {
		ID       int64  `json:"id"`
		Name     string `json:"name"`
		FullName string `json:"full_name"`
		Owner    struct {
			Login string `json:"login"`
		} `json:"owner"`
	}
	// Ref is a branch of a pull request: its name, commit and repository.
	Ref struct {
		Ref  string `json:"ref"`
		SHA  string `json:"sha"`
		Repo *Repo  `json:"repo"`
	}
	// PR is a pull request as a payload names it.
	PR struct {
		Number  int    `json:"number"`
		Draft   bool   `json:"draft"`
		HTMLURL string `json:"html_url"`
		Head    Ref    `json:"head"`
		Base    Ref    `json:"base"`
	}
)

// PullRequestFields are the fields of a pull_request payload beside those
// every payload has.
type PullRequestFields struct {
	PullRequest *PR `json:"pull_request"`
	Changes     struct {
		Base json.RawMessage `json:"base"`
	} `json:"changes"`
}

// pullRequest picks the pull request of a pull_request event whose action
// brings code to review: opened, reopened, synchronize, ready_for_review,
// and edited when the base branch changed.
func (e *Payload) pullRequest() (PR, bool, error) {
	switch e.Action {
	case "opened", "reopened", "synchronize", "ready_for_review":
	case "edited":
		if len(e.Changes.Base) == 0 || string(e.Changes.Base) == "null" {
			return PR{}, false, nil
		}
	default:
		return PR{}, false, nil
	}
	if e.PullRequest == nil {
		return PR{}, false, fmt.Errorf("%w: pull_request event without pull_request", pullreq.ErrBadDelivery)
	}
	return *e.PullRequest, true, nil
}

// PullRequest is p, a pull request into repo, as the bot reviews it; ok is
// false when it lacks the owner, name, number or head commit. Fork is set
// when the head repository is another (names compared as GitHub does,
// ignoring case) or gone (a deleted fork: head.repo is null).
func (p PR) PullRequest(repo *Repo) (pr pullreq.PullRequest, ok bool) {
	owner, name := repo.Owner.Login, repo.Name
	if o, n, ok := strings.Cut(repo.FullName, "/"); ok && (owner == "" || name == "") {
		owner, name = o, n
	}
	pr = pullreq.PullRequest{
		Host:    "github",
		Repo:    owner + "/" + name,
		RepoID:  repo.ID,
		Number:  p.Number,
		BaseSHA: p.Base.SHA,
		HeadSHA: p.Head.SHA,
		BaseRef: p.Base.Ref,
		HeadRef: p.Head.Ref,
		Draft:   p.Draft,
		Fork:    p.Head.Repo == nil || (p.Head.Repo.FullName != "" && repo.FullName != "" && !strings.EqualFold(p.Head.Repo.FullName, repo.FullName)),
		URL:     p.HTMLURL,
	}
	return pr, owner != "" && name != "" && pr.Number > 0 && pr.HeadSHA != ""
}

// DecodePullRequest decodes the pull request a pull_request or
// pull_request_target payload carries, whatever its action, as a workflow
// run reads its event: the pull request into its base repository (the
// payload's repository when base.repo is absent). found is false when the
// payload has no pull request; err is set when it does not parse, names no
// repository, or its pull request lacks its number, base or head commit.
func DecodePullRequest(body []byte) (pr pullreq.PullRequest, found bool, err error) {
	var e struct {
		Repository *Repo `json:"repository"`
		PullRequestFields
	}
	if err := json.Unmarshal(body, &e); err != nil {
		return pullreq.PullRequest{}, false, fmt.Errorf("decoding the event payload: %w", err)
	}
	if e.PullRequest == nil {
		return pullreq.PullRequest{}, false, nil
	}
	p := e.PullRequest
	repo := p.Base.Repo
	if repo == nil {
		repo = e.Repository
	}
	if repo == nil {
		return pullreq.PullRequest{}, true, errors.New("the event payload names no repository")
	}
	pr, ok := p.PullRequest(repo)
	if !ok || pr.BaseSHA == "" {
		return pullreq.PullRequest{}, true, errors.New("the event's pull request lacks its repository, number, base.sha or head.sha")
	}
	return pr, true, nil
}

// Check is the part of a check_suite or check_run payload we read.
type Check struct {
	ID           int64  `json:"id"`
	ExternalID   string `json:"external_id"`
	HeadSHA      string `json:"head_sha"`
	PullRequests []PR   `json:"pull_requests"`
}

// CheckFields are the fields of check_suite and check_run payloads beside
// those every payload has.
type CheckFields struct {
	CheckSuite *Check `json:"check_suite"`
	CheckRun   *Check `json:"check_run"`
}

// checkSuite picks the pull request a rerequested check suite is for.
func (e *Payload) checkSuite() (PR, bool, error) {
	return e.rerequested(e.CheckSuite)
}

// checkRun picks the pull request a rerequested check run is for.
func (e *Payload) checkRun() (PR, bool, error) {
	return e.rerequested(e.CheckRun)
}

// rerequested returns the first pull request c names when the action asks
// for the check again (its head is c's head when the pull request names
// none).
func (e *Payload) rerequested(c *Check) (PR, bool, error) {
	if e.Action != "rerequested" || c == nil || len(c.PullRequests) == 0 {
		return PR{}, false, nil
	}
	p := c.PullRequests[0]
	if p.Head.SHA == "" {
		p.Head.SHA = c.HeadSHA
	}
	return p, true, nil
}
