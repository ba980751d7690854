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

	gh "github.com/google/go-github/v88/github"

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

// Decode turns a delivery into the pull request to review. ok is false for
// events and actions we do not handle (answer 2xx and do nothing); err is
// set for a body that does not parse.
//
// Handled: pull_request opened, reopened, synchronize, ready_for_review,
// and edited when the base branch changed; check_suite and check_run
// rerequested (the first pull request they name).
func Decode(event string, body []byte) (pr bot.PullRequest, name string, ok bool, err error) {
	switch event {
	case "pull_request":
		var e gh.PullRequestEvent
		if err := json.Unmarshal(body, &e); err != nil {
			return pr, "", false, fmt.Errorf("decoding pull_request event: %w", err)
		}
		action := e.GetAction()
		switch action {
		case "opened", "reopened", "synchronize", "ready_for_review":
		case "edited":
			if e.GetChanges().GetBase() == nil {
				return pr, "", false, nil
			}
		default:
			return pr, "", false, nil
		}
		p := e.GetPullRequest()
		if p == nil || e.GetRepo() == nil {
			return pr, "", false, errors.New("pull_request event without pull_request or repository")
		}
		pr = bot.PullRequest{
			Host:           "github",
			Owner:          e.GetRepo().GetOwner().GetLogin(),
			Repo:           e.GetRepo().GetName(),
			InstallationID: e.GetInstallation().GetID(),
			Number:         p.GetNumber(),
			BaseSHA:        p.GetBase().GetSHA(),
			HeadSHA:        p.GetHead().GetSHA(),
			BaseRef:        p.GetBase().GetRef(),
			HeadRef:        p.GetHead().GetRef(),
			Draft:          p.GetDraft(),
			Fork:           p.GetHead().GetRepo().GetFullName() != e.GetRepo().GetFullName(),
			URL:            p.GetHTMLURL(),
		}
		if !validPR(pr) {
			return bot.PullRequest{}, "", false, nil
		}
		return pr, event + "." + action, true, nil
	case "check_suite":
		var e gh.CheckSuiteEvent
		if err := json.Unmarshal(body, &e); err != nil {
			return pr, "", false, fmt.Errorf("decoding check_suite event: %w", err)
		}
		if e.GetAction() != "rerequested" {
			return pr, "", false, nil
		}
		cs := e.GetCheckSuite()
		pr, ok := fromCheckPRs(cs.PullRequests, cs.GetHeadSHA(), e.GetRepo(), e.GetInstallation())
		if !ok {
			return pr, "", false, nil
		}
		return pr, event + ".rerequested", true, nil
	case "check_run":
		var e gh.CheckRunEvent
		if err := json.Unmarshal(body, &e); err != nil {
			return pr, "", false, fmt.Errorf("decoding check_run event: %w", err)
		}
		if e.GetAction() != "rerequested" {
			return pr, "", false, nil
		}
		cr := e.GetCheckRun()
		pr, ok := fromCheckPRs(cr.PullRequests, cr.GetHeadSHA(), e.GetRepo(), e.GetInstallation())
		if !ok {
			return pr, "", false, nil
		}
		return pr, event + ".rerequested", true, nil
	}
	return pr, "", false, nil
}

func fromCheckPRs(prs []*gh.PullRequest, headSHA string, repo *gh.Repository, inst *gh.Installation) (bot.PullRequest, bool) {
	if len(prs) == 0 || repo == nil {
		return bot.PullRequest{}, false
	}
	p := prs[0]
	head := p.GetHead().GetSHA()
	if head == "" {
		head = headSHA
	}
	pr := bot.PullRequest{
		Host:           "github",
		Owner:          repo.GetOwner().GetLogin(),
		Repo:           repo.GetName(),
		InstallationID: inst.GetID(),
		Number:         p.GetNumber(),
		BaseSHA:        p.GetBase().GetSHA(),
		HeadSHA:        head,
		BaseRef:        p.GetBase().GetRef(),
		HeadRef:        p.GetHead().GetRef(),
		URL:            p.GetHTMLURL(),
	}
	return pr, validPR(pr)
}

func validPR(pr bot.PullRequest) bool {
	return pr.Owner != "" && pr.Repo != "" && pr.Number > 0 && pr.HeadSHA != "" && pr.InstallationID != 0
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
	answer := func(code int, outcome, msg string) {
		wh.Metrics.Delivery("github", event, outcome)
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
	pr, name, ok, err := Decode(event, body)
	if err != nil {
		answer(http.StatusBadRequest, "bad_request", "cannot decode event")
		return
	}
	if !ok {
		answer(http.StatusOK, "ignored", "ignored")
		return
	}
	host, err := wh.HostFor(pr.InstallationID)
	if err != nil {
		log.Error("no client for installation", "installation", pr.InstallationID, "err", err.Error())
		answer(http.StatusInternalServerError, "error", "cannot act as the installation")
		return
	}
	job := bot.Job{DeliveryID: delivery, Event: name, PR: pr, Host: host}
	switch err := wh.Queue.Enqueue(job); {
	case err == nil:
		wh.Metrics.Delivery("github", event, "queued")
		bot.JobLogger(base, job).Info("review queued")
		w.WriteHeader(http.StatusAccepted)
	case errors.Is(err, bot.ErrDuplicate):
		answer(http.StatusOK, "duplicate", "already handled")
	default: // queue full or shutting down: the host delivers again
		answer(http.StatusServiceUnavailable, "queue_full", "busy, deliver again later")
	}
}
