package bot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/prodready/prodready/bot/pullreq"
)

// An Intake is one host's side of a webhook delivery: how the host signs
// it and what it asks for. Webhook does the rest, the same for every host.
type Intake interface {
	// Host names the host in logs and metrics ("github", "gitlab").
	Host() string
	// Event is the metrics label of the delivery's event: one of the few
	// events the host sends, or "other". The header it comes from is the
	// sender's to choose; as a label as is, it could add a series per
	// delivery.
	Event(r *http.Request) string
	// VerifyHeader checks the credentials the headers carry against
	// secret, before the body is read: a host that sends its credentials
	// in the headers alone checks them all here, so that no unauthenticated
	// sender makes the server read a body; a host that signs the body
	// checks here what it can (a signature is present and well formed).
	VerifyHeader(r *http.Request, secret []byte) error
	// VerifyBody checks the credentials that cover the body, once it is
	// read (nil for a host whose credentials are in the headers alone).
	VerifyBody(r *http.Request, secret, body []byte) error
	// Decode turns a verified delivery into the jobs it asks for; none
	// means the delivery is acknowledged and ignored. An error wrapping
	// ErrBadDelivery is the sender's (400); any other is the server's
	// (500). Jobs of one delivery need distinct delivery ids.
	Decode(r *http.Request, body []byte) ([]Job, error)
}

// A StreamingIntake is an Intake that checks the credentials over the body
// while the body streams in (an HMAC), instead of over the whole body once
// read: Webhook uses BodyVerifier in place of VerifyBody.
type StreamingIntake interface {
	Intake
	// BodyVerifier returns the writer the body is copied to as it is read,
	// and the check to run once all of it is read.
	BodyVerifier(r *http.Request, secret []byte) (w io.Writer, verify func() error)
}

// ErrBadDelivery is what an Intake's Decode wraps for a verified delivery
// whose body is not what its event says (answered 400): pullreq's, where
// the decoders find it.
var ErrBadDelivery = pullreq.ErrBadDelivery

// Webhook is the http.Handler of one host's webhook route, e.g.
// srv.Handle(http.MethodPost, "/webhooks/gitlab", &bot.Webhook{…}). It
// answers:
//
//   - 405 to a method other than POST;
//   - 403 to every delivery when no secret is configured: a delivery is
//     never accepted unauthenticated;
//   - 401 when the credentials in the headers, then those over the body,
//     do not verify;
//   - 503 before the body is read when its size does not fit in Budget
//     (the host delivers again);
//   - a refusal sent before the body is read (405, 403, 401 on the
//     headers, 503 over the budget) is followed by reading and discarding
//     the rest of the body, within bounds, so that the sender, still
//     writing it, reads the answer instead of a reset connection;
//   - 413 to a body over MaxWebhookBody, 400 to one that cannot be read or
//     decoded;
//   - 200 to a delivery that asks for nothing, or whose delivery id is
//     queued or done already (a redelivery runs once), or whose review is
//     (outcome coalesced: a review of the same head is queued, running or
//     done against the same base; counted in
//     prodready_deliveries_coalesced_total and logged at info);
//   - 202 when its jobs are queued; 503 when the queue refuses them (full,
//     or shutting down: the host delivers again); 500 when the server
//     fails.
//
// Each delivery is counted in Metrics by host, event and outcome; its event
// is "unverified" until the credentials verify. A delivery id longer than
// MaxDeliveryID, or holding other than printable ASCII, is replaced by
// its SHA-256 before it is logged or queued.
type Webhook struct {
	// Intake is the host's part.
	Intake Intake
	// Secret is the webhook secret; without one every delivery is refused.
	Secret []byte
	// Queue receives the jobs.
	Queue Enqueuer
	// Budget bounds the bodies held at once, shared by every route (nil:
	// unbounded but for MaxWebhookBody each).
	Budget *BodyBudget
	// Metrics counts deliveries (nil: not counted).
	Metrics *Metrics
	// Logger receives one line per refused or queued delivery (nil:
	// slog.Default).
	Logger *slog.Logger
}

// ServeHTTP verifies, decodes and queues one delivery.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := wh.Intake.Host()
	logger := wh.Logger
	if logger == nil {
		logger = slog.Default()
	}
	event := "unverified"
	bodyRead := false // a refusal before the body is read lingers on it
	answer := func(code int, outcome, msg string, err error) {
		wh.Metrics.Delivery(host, event, outcome)
		switch {
		case outcome == "error":
			logger.Error("delivery failed", "host", host, "event", event, "status", code, "outcome", outcome, "err", err.Error())
		case code >= 400:
			attrs := []any{"host", host, "event", event, "status", code, "outcome", outcome}
			if err != nil {
				attrs = append(attrs, "err", err.Error())
			}
			logger.Warn("delivery refused", attrs...)
		}
		if bodyRead {
			writeAnswer(w, code, msg)
			return
		}
		lingerOnUnreadBody(w, r, func() { writeAnswer(w, code, msg) })
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		answer(http.StatusMethodNotAllowed, "bad_request", "method not allowed", nil)
		return
	}
	if len(wh.Secret) == 0 {
		answer(http.StatusForbidden, "disabled", host+" webhooks are disabled: no secret is configured", nil)
		return
	}
	if err := wh.Intake.VerifyHeader(r, wh.Secret); err != nil {
		answer(http.StatusUnauthorized, "bad_signature", "bad credentials", err)
		return
	}
	if r.ContentLength > MaxWebhookBody {
		w.Header().Set("Connection", "close")
		answer(http.StatusRequestEntityTooLarge, "too_large", "payload too large", fmt.Errorf("Content-Length %d is over %d", r.ContentLength, MaxWebhookBody))
		return
	}
	reserve := int64(MaxWebhookBody)
	if r.ContentLength >= 0 {
		reserve = r.ContentLength
	}
	if !wh.Budget.Reserve(reserve) {
		// Refused unread: the connection closes instead of draining it.
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "5")
		answer(http.StatusServiceUnavailable, "over_budget", "too many deliveries in flight, deliver again later", fmt.Errorf("%d bytes of bodies in flight, the budget is %d", wh.Budget.InUse(), wh.Budget.Limit()))
		return
	}
	defer wh.Budget.Release(reserve)
	var mac io.Writer
	verify := func() error { return nil }
	streaming, isStreaming := wh.Intake.(StreamingIntake)
	if isStreaming {
		mac, verify = streaming.BodyVerifier(r, wh.Secret)
	}
	bodyRead = true
	body, err := readBody(http.MaxBytesReader(w, r.Body, MaxWebhookBody), r.ContentLength, mac)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			answer(http.StatusRequestEntityTooLarge, "too_large", "payload too large", err)
			return
		}
		answer(http.StatusBadRequest, "bad_request", "cannot read body", err)
		return
	}
	if isStreaming {
		err = verify()
	} else {
		err = wh.Intake.VerifyBody(r, wh.Secret, body)
	}
	if err != nil {
		answer(http.StatusUnauthorized, "bad_signature", "bad credentials", err)
		return
	}
	event = wh.Intake.Event(r)
	jobs, err := wh.Intake.Decode(r, body)
	switch {
	case errors.Is(err, ErrBadDelivery):
		answer(http.StatusBadRequest, "bad_request", "cannot decode event", err)
		return
	case err != nil:
		answer(http.StatusInternalServerError, "error", "cannot take the delivery", err)
		return
	case len(jobs) == 0:
		answer(http.StatusOK, "ignored", "ignored: starts no review", nil)
		return
	}
	body = nil // the jobs carry what the review needs
	queued, coalesced := 0, 0
	for _, job := range jobs {
		job.DeliveryID = BoundDeliveryID(job.DeliveryID)
		switch err := wh.Queue.Enqueue(job); {
		case err == nil:
			queued++
			JobLogger(logger, job).Info("review queued", "host", host)
		case errors.Is(err, ErrDuplicate):
		case errors.Is(err, ErrCoalesced):
			coalesced++
			reason := CoalescedPending
			var ce *CoalescedError
			if errors.As(err, &ce) {
				reason = ce.Reason
			}
			wh.Metrics.Coalesced(host, reason)
			JobLogger(logger, job).Info("delivery absorbed: starts no review", "host", host, "head", job.PR.HeadSHA, "base", job.PR.BaseSHA, "reason", reason, "why", err.Error())
		case errors.Is(err, ErrStorageFull):
			// The host delivers again; the jobs queued already are
			// duplicates then. Same for the next two.
			answer(http.StatusServiceUnavailable, "storage_full", "queue storage full, deliver again later", err)
			return
		case errors.Is(err, ErrQueueUnavailable):
			answer(http.StatusServiceUnavailable, "queue_unavailable", "queue storage unavailable, deliver again later", err)
			return
		case errors.Is(err, ErrQueueFull):
			answer(http.StatusServiceUnavailable, "queue_full", "queue full, deliver again later", err)
			return
		case errors.Is(err, ErrShuttingDown):
			answer(http.StatusServiceUnavailable, "shutting_down", "shutting down, deliver again later", err)
			return
		default:
			answer(http.StatusInternalServerError, "error", "cannot queue the review", fmt.Errorf("queueing %s: %w", job.DeliveryID, err))
			return
		}
	}
	if queued == 0 && coalesced > 0 {
		answer(http.StatusOK, "coalesced", "already reviewed, or a review of this head is queued", nil)
		return
	}
	if queued == 0 {
		answer(http.StatusOK, "duplicate", "already handled", nil)
		return
	}
	answer(http.StatusAccepted, "queued", "review queued", nil)
}

// lingerFor and lingerBytes bound how long, and how much of a body, a
// refusal sent before the body was read goes on reading it (nginx's
// lingering_close does the same, for up to 30 s).
const (
	lingerFor   = 10 * time.Second
	lingerBytes = MaxWebhookBody
)

// lingerOnUnreadBody sends a refusal (answer) that was decided before the
// request's body was read, then reads and discards what the client still
// sends of that body, within lingerFor and lingerBytes. Closing a
// connection with unread bytes makes the kernel reset it, and a client
// still writing its body then loses the answer it was sent: Go's client
// lost 35 to 37 of 38 such 503s in `make loadtest-memory`, so a sender saw
// a reset where it should have seen a 503 with its Retry-After. The body
// goes through a small buffer, so the body budget's bound on memory holds.
// Without the means to read after answering (HTTP/2, a test recorder), or
// for a body declared over lingerBytes, the answer is sent alone.
func lingerOnUnreadBody(w http.ResponseWriter, r *http.Request, answer func()) {
	rc := http.NewResponseController(w)
	linger := r.Body != nil && r.ContentLength != 0 && r.ContentLength <= lingerBytes && rc.EnableFullDuplex() == nil
	answer()
	if !linger || rc.Flush() != nil {
		return
	}
	_ = rc.SetReadDeadline(time.Now().Add(lingerFor))
	_, _ = io.CopyN(io.Discard, r.Body, lingerBytes)
}

// writeAnswer writes msg as a plain-text answer with code.
func writeAnswer(w http.ResponseWriter, code int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	io.WriteString(w, msg+"\n")
}

// MaxDeliveryID is the longest delivery id kept as the sender wrote it
// (GitHub's are 36-character GUIDs).
const MaxDeliveryID = 128

// BoundDeliveryID returns id when it is at most MaxDeliveryID bytes of
// printable ASCII, else "sha256:" and its SHA-256 in hex: the same id
// still names the same delivery, and a log line or queue key never holds
// a header's arbitrary bytes.
func BoundDeliveryID(id string) string {
	ok := len(id) <= MaxDeliveryID
	for i := 0; ok && i < len(id); i++ {
		ok = id[i] > ' ' && id[i] < 0x7f
	}
	if ok {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// readBody reads a body of length bytes (-1: unknown, then at most
// MaxWebhookBody, which r enforces) into a buffer of its size, copying it
// to mac as it goes (nil: none). A known length is allocated once; an
// unknown one grows by doubling, never past MaxWebhookBody.
func readBody(r io.Reader, length int64, mac io.Writer) ([]byte, error) {
	if mac != nil {
		r = io.TeeReader(r, mac)
	}
	if length >= 0 {
		buf := make([]byte, length)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	buf := make([]byte, 0, 64<<10)
	for {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf), MaxWebhookBody+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
