package gitlab

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

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

// NewWebhookHandler answers GitLab webhook deliveries. It checks the
// X-Gitlab-Token header against secret in constant time (401 when it
// differs; every delivery is refused with 403 when secret is empty),
// answers 413 above bot.MaxWebhookBody, and turns each Merge Request Hook
// (or a system hook's merge request event) with action open, reopen, or
// update with oldrev (a new push) into a bot.Job on q, reviewed by host.
// Other events and actions, and merge requests already closed or merged,
// are acknowledged and ignored. Redeliveries (same Idempotency-Key, else
// X-Gitlab-Event-UUID) run once: q reports them as duplicates. It never
// blocks on the review: a full queue is answered 503 so GitLab retries.
func NewWebhookHandler(secret []byte, host bot.Host, q bot.Enqueuer) *Webhook {
	return &Webhook{secret: append([]byte(nil), secret...), host: host, q: q}
}

// Webhook is the handler NewWebhookHandler returns.
type Webhook struct {
	secret []byte
	host   bot.Host
	q      bot.Enqueuer
	// Metrics counts deliveries by event and outcome (nil: not counted).
	Metrics *bot.Metrics
	// Logger receives one line per refused or queued delivery (nil:
	// slog.Default).
	Logger *slog.Logger
}

func (wh *Webhook) logger() *slog.Logger {
	if wh.Logger != nil {
		return wh.Logger
	}
	return slog.Default()
}

// ServeHTTP implements http.Handler.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	event, outcome := "unverified", "error"
	defer func() { wh.Metrics.Delivery("gitlab", event, outcome) }()
	if r.Method != http.MethodPost {
		outcome = "bad_request"
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if len(wh.secret) == 0 {
		outcome = "disabled"
		http.Error(w, "GitLab webhooks are disabled: no secret is configured", http.StatusForbidden)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("X-Gitlab-Token")), wh.secret) != 1 {
		outcome = "bad_signature"
		wh.logger().Warn("gitlab webhook: invalid token", "remote", r.RemoteAddr)
		http.Error(w, "invalid X-Gitlab-Token", http.StatusUnauthorized)
		return
	}
	// Known events only as a label: the header is the sender's to choose.
	event = "other"
	switch r.Header.Get("X-Gitlab-Event") {
	case "Merge Request Hook":
		event = "merge_request"
	case "System Hook": // an instance's system hook; merge requests checked below
		event = "system"
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, bot.MaxWebhookBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		outcome = "too_large"
		http.Error(w, "payload too large", http.StatusRequestEntityTooLarge)
		return
	}
	if err != nil {
		outcome = "bad_request"
		http.Error(w, "reading the payload failed", http.StatusBadRequest)
		return
	}
	if event == "other" {
		outcome = "ignored"
		writeText(w, http.StatusOK, "ignored: not a merge request event")
		return
	}
	var ev mergeRequestEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		outcome = "bad_request"
		http.Error(w, "malformed JSON payload", http.StatusBadRequest)
		return
	}
	a := ev.Attrs
	if event == "system" && ev.ObjectKind != "merge_request" {
		outcome = "ignored"
		writeText(w, http.StatusOK, "ignored: not a merge request event")
		return
	}
	if ev.ObjectKind != "merge_request" || ev.Project.ID == 0 || a.IID == 0 || a.LastCommit.ID == "" {
		outcome = "bad_request"
		http.Error(w, "not a merge request payload", http.StatusBadRequest)
		return
	}
	switch {
	case a.State == "closed" || a.State == "merged":
		outcome = "ignored"
		writeText(w, http.StatusOK, "ignored: the merge request is "+a.State)
		return
	case a.Action == "open", a.Action == "reopen":
	case a.Action == "update" && a.OldRev != "":
	default:
		outcome = "ignored"
		writeText(w, http.StatusOK, "ignored: this action starts no review")
		return
	}
	delivery := r.Header.Get("Idempotency-Key")
	if delivery == "" {
		delivery = r.Header.Get("X-Gitlab-Event-UUID")
	}
	if delivery == "" {
		// Without a delivery id, one review per project, MR and head.
		delivery = fmt.Sprintf("%d!%d@%s", ev.Project.ID, a.IID, a.LastCommit.ID)
	}
	job := bot.Job{
		DeliveryID: "gitlab:" + delivery,
		Event:      "merge_request." + a.Action,
		Host:       wh.host,
		PR: bot.PullRequest{
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
		},
	}
	switch err := wh.q.Enqueue(job); {
	case errors.Is(err, bot.ErrDuplicate):
		outcome = "duplicate"
		writeText(w, http.StatusOK, "duplicate delivery")
	case errors.Is(err, bot.ErrQueueFull), errors.Is(err, bot.ErrShuttingDown):
		outcome = "queue_full"
		http.Error(w, "review queue is full, retry later", http.StatusServiceUnavailable)
	case err != nil:
		wh.logger().Error("gitlab webhook: enqueue failed", "delivery", job.DeliveryID, "err", err)
		http.Error(w, "could not queue the review", http.StatusInternalServerError)
	default:
		outcome = "queued"
		wh.logger().Info("gitlab webhook: review queued", "delivery", job.DeliveryID, "repo", job.PR.Repo, "mr", job.PR.Number, "head", job.PR.HeadSHA)
		writeText(w, http.StatusAccepted, "review queued")
	}
}

func writeText(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	io.WriteString(w, msg+"\n")
}
