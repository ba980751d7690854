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
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/prodready/prodready/bot"
)

// VerifySignature checks an X-Hub-Signature-256 header ("sha256=<hex>")
// against body in constant time. An empty secret verifies nothing.
func VerifySignature(secret, body []byte, header string) bool {
	if len(secret) == 0 {
		return false
	}
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
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

// The parts of webhook payloads we read. Decoding only these (not
// go-github's full event types) keeps a field we do not use, such as a
// timestamp in an older format, from failing a delivery.
type (
	hookRepo struct {
		ID       int64  `json:"id"`
		Name     string `json:"name"`
		FullName string `json:"full_name"`
		Owner    struct {
			Login string `json:"login"`
		} `json:"owner"`
	}
	hookRef struct {
		Ref  string    `json:"ref"`
		SHA  string    `json:"sha"`
		Repo *hookRepo `json:"repo"`
	}
	hookPR struct {
		Number  int     `json:"number"`
		Draft   bool    `json:"draft"`
		HTMLURL string  `json:"html_url"`
		Head    hookRef `json:"head"`
		Base    hookRef `json:"base"`
	}
	hookInstallation struct {
		ID int64 `json:"id"`
	}
	hookEvent struct {
		Action       string            `json:"action"`
		Repository   *hookRepo         `json:"repository"`
		Installation *hookInstallation `json:"installation"`
		PullRequest  *hookPR           `json:"pull_request"`
		Changes      struct {
			Base json.RawMessage `json:"base"`
		} `json:"changes"`
		CheckSuite *struct {
			HeadSHA      string   `json:"head_sha"`
			PullRequests []hookPR `json:"pull_requests"`
		} `json:"check_suite"`
		CheckRun *struct {
			HeadSHA      string   `json:"head_sha"`
			PullRequests []hookPR `json:"pull_requests"`
		} `json:"check_run"`
	}
)

// Event is a delivery that starts a review.
type Event struct {
	// PR is the pull request to review.
	PR bot.PullRequest
	// Installation is the id of the GitHub App installation that received
	// the delivery: the Host reviewing PR acts as it.
	Installation int64
	// Name is the event and action, e.g. "pull_request.synchronize".
	Name string
}

// Decode turns a delivery into the review it starts. ok is false for
// events and actions we do not handle (answer 2xx and do nothing); err is
// set for a body that does not parse.
//
// Handled: pull_request opened, reopened, synchronize, ready_for_review,
// and edited when the base branch changed; check_suite and check_run
// rerequested (the first pull request they name).
func Decode(event string, body []byte) (ev Event, ok bool, err error) {
	switch event {
	case "pull_request", "check_suite", "check_run":
	default:
		return Event{}, false, nil
	}
	var e hookEvent
	if err := json.Unmarshal(body, &e); err != nil {
		return Event{}, false, fmt.Errorf("decoding %s event: %w", event, err)
	}
	if e.Repository == nil || e.Installation == nil {
		return Event{}, false, nil
	}
	var p hookPR
	switch event {
	case "pull_request":
		switch e.Action {
		case "opened", "reopened", "synchronize", "ready_for_review":
		case "edited":
			if len(e.Changes.Base) == 0 || string(e.Changes.Base) == "null" {
				return Event{}, false, nil
			}
		default:
			return Event{}, false, nil
		}
		if e.PullRequest == nil {
			return Event{}, false, errors.New("pull_request event without pull_request")
		}
		p = *e.PullRequest
	case "check_suite":
		if e.Action != "rerequested" || e.CheckSuite == nil || len(e.CheckSuite.PullRequests) == 0 {
			return Event{}, false, nil
		}
		p = e.CheckSuite.PullRequests[0]
		if p.Head.SHA == "" {
			p.Head.SHA = e.CheckSuite.HeadSHA
		}
	case "check_run":
		if e.Action != "rerequested" || e.CheckRun == nil || len(e.CheckRun.PullRequests) == 0 {
			return Event{}, false, nil
		}
		p = e.CheckRun.PullRequests[0]
		if p.Head.SHA == "" {
			p.Head.SHA = e.CheckRun.HeadSHA
		}
	}
	if p.Base.Repo != nil && p.Base.Repo.FullName != "" && p.Base.Repo.FullName != e.Repository.FullName {
		// A check suite can name a pull request into another repository
		// (from a fork): that review belongs to the other repository's events.
		return Event{}, false, nil
	}
	owner, name := e.Repository.Owner.Login, e.Repository.Name
	pr := bot.PullRequest{
		Host:    "github",
		Repo:    owner + "/" + name,
		RepoID:  e.Repository.ID,
		Number:  p.Number,
		BaseSHA: p.Base.SHA,
		HeadSHA: p.Head.SHA,
		BaseRef: p.Base.Ref,
		HeadRef: p.Head.Ref,
		Draft:   p.Draft,
		Fork:    p.Head.Repo != nil && p.Head.Repo.FullName != "" && p.Head.Repo.FullName != e.Repository.FullName,
		URL:     p.HTMLURL,
	}
	if owner == "" || name == "" || pr.Number <= 0 || pr.HeadSHA == "" || e.Installation.ID == 0 {
		return Event{}, false, nil
	}
	return Event{PR: pr, Installation: e.Installation.ID, Name: event + "." + e.Action}, true, nil
}

// eventLabel is the metrics label of an X-GitHub-Event header: the event
// when it is one GitHub sends to an app, else "other". The header is the
// sender's to choose before its signature is checked: used as a label as
// is, it could add a series per delivery, or panic the metrics with a value
// that is not UTF-8.
func eventLabel(event string) string {
	switch event {
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

// Webhook is the http.Handler of POST /webhooks/github.
type Webhook struct {
	// Secret is the webhook secret; without one every delivery is refused.
	Secret []byte
	// Queue receives the jobs.
	Queue bot.Enqueuer
	// HostFor returns the Host acting as the installation.
	HostFor func(installationID int64) (bot.Host, error)
	Metrics *bot.Metrics
	Logger  *slog.Logger
}

// ServeHTTP verifies the signature before parsing anything, decodes the
// event and queues the review: 202 when queued, 200 for events we do not
// handle and duplicates, 401 for a bad signature, 413 for a body over 25
// MiB, 400 for a body that does not parse, 503 when the queue is full.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	base := wh.Logger
	if base == nil {
		base = slog.Default()
	}
	log := base
	event := r.Header.Get("X-GitHub-Event")
	delivery := r.Header.Get("X-GitHub-Delivery")
	log = log.With("delivery", delivery, "event", event)
	label := eventLabel(event)
	answer := func(code int, outcome, msg string) {
		wh.Metrics.Delivery("github", label, outcome)
		if code >= 400 {
			log.Warn("delivery refused", "status", code, "outcome", outcome)
		}
		http.Error(w, msg, code)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, bot.MaxWebhookBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			answer(http.StatusRequestEntityTooLarge, "too_large", "payload too large")
			return
		}
		answer(http.StatusBadRequest, "bad_request", "cannot read body")
		return
	}
	if !VerifySignature(wh.Secret, body, r.Header.Get("X-Hub-Signature-256")) {
		answer(http.StatusUnauthorized, "bad_signature", "bad signature")
		return
	}
	ev, ok, err := Decode(event, body)
	if err != nil {
		answer(http.StatusBadRequest, "bad_request", "cannot decode event")
		return
	}
	if !ok {
		answer(http.StatusOK, "ignored", "ignored")
		return
	}
	host, err := wh.HostFor(ev.Installation)
	if err != nil {
		log.Error("no client for installation", "installation", ev.Installation, "err", err.Error())
		answer(http.StatusInternalServerError, "error", "cannot act as the installation")
		return
	}
	job := bot.Job{DeliveryID: delivery, Event: ev.Name, PR: ev.PR, Host: host}
	switch err := wh.Queue.Enqueue(job); {
	case err == nil:
		wh.Metrics.Delivery("github", label, "queued")
		bot.JobLogger(base, job).Info("review queued")
		w.WriteHeader(http.StatusAccepted)
	case errors.Is(err, bot.ErrDuplicate):
		answer(http.StatusOK, "duplicate", "already handled")
	default: // queue full or shutting down: the host delivers again
		answer(http.StatusServiceUnavailable, "queue_full", "busy, deliver again later")
	}
}
