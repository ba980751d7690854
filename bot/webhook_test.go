package bot

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeIntake accepts the header "X-Token: ok" and a body that is not
// "forged"; its Decode answers with jobs and err.
type fakeIntake struct {
	jobs     []Job
	err      error
	verified bool // set when VerifyBody ran
}

func (*fakeIntake) Host() string               { return "fake" }
func (*fakeIntake) Event(*http.Request) string { return "push" }

func (*fakeIntake) VerifyHeader(r *http.Request, secret []byte) error {
	if r.Header.Get("X-Token") != "ok" {
		return errors.New("no token")
	}
	return nil
}

func (in *fakeIntake) VerifyBody(_ *http.Request, _, body []byte) error {
	in.verified = true
	if string(body) == "forged" {
		return errors.New("forged")
	}
	return nil
}

func (in *fakeIntake) Decode(*http.Request, []byte) ([]Job, error) { return in.jobs, in.err }

// errQueue is an Enqueuer answering err.
type errQueue struct{ err error }

func (q errQueue) Enqueue(Job) error { return q.err }

// unreadBody fails the test when read: a refusal must come before the body.
type unreadBody struct{ t *testing.T }

func (b unreadBody) Read([]byte) (int, error) {
	b.t.Error("the body was read")
	return 0, io.EOF
}

func TestWebhookAnswers(t *testing.T) {
	job := []Job{{DeliveryID: "d-1"}}
	for _, tc := range []struct {
		name, method, token string
		secret              string
		body                io.Reader
		intake              *fakeIntake
		qerr                error
		code                int
		outcome, event      string
	}{
		{"GET", http.MethodGet, "ok", "s", nil, &fakeIntake{jobs: job}, nil, 405, "bad_request", "unverified"},
		{"no secret configured", http.MethodPost, "ok", "", nil, &fakeIntake{jobs: job}, nil, 403, "disabled", "unverified"},
		{"header refused", http.MethodPost, "bad", "s", nil, &fakeIntake{jobs: job}, nil, 401, "bad_signature", "unverified"},
		{"over the limit", http.MethodPost, "ok", "s", bytes.NewReader(make([]byte, MaxWebhookBody+1)), &fakeIntake{jobs: job}, nil, 413, "too_large", "unverified"},
		{"body refused", http.MethodPost, "ok", "s", strings.NewReader("forged"), &fakeIntake{jobs: job}, nil, 401, "bad_signature", "unverified"},
		{"undecodable", http.MethodPost, "ok", "s", strings.NewReader("{"), &fakeIntake{err: ErrBadDelivery}, nil, 400, "bad_request", "push"},
		{"server error", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{err: errors.New("no client")}, nil, 500, "error", "push"},
		{"ignored", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{}, nil, 200, "ignored", "push"},
		{"queued", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, nil, 202, "queued", "push"},
		{"duplicate", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, ErrDuplicate, 200, "duplicate", "push"},
		{"queue full", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, ErrQueueFull, 503, "queue_full", "push"},
		{"shutting down", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, ErrShuttingDown, 503, "shutting_down", "push"},
		{"queue broken", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, errors.New("boom"), 500, "error", "push"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body
			if body == nil {
				body = unreadBody{t}
			}
			m := NewMetrics()
			wh := &Webhook{Intake: tc.intake, Secret: []byte(tc.secret), Queue: errQueue{tc.qerr}, Metrics: m, Logger: slog.New(slog.DiscardHandler)}
			req := httptest.NewRequest(tc.method, "/webhooks/fake", body)
			req.Header.Set("X-Token", tc.token)
			rec := httptest.NewRecorder()
			wh.ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Errorf("status %d (%s), want %d", rec.Code, rec.Body, tc.code)
			}
			if tc.code == 405 && rec.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow %q, want POST", rec.Header().Get("Allow"))
			}
			if tc.code < 401 && !tc.intake.verified {
				t.Error("answered without verifying the body")
			}
			var out strings.Builder
			m.WritePrometheus(&out)
			want := `prodready_webhook_deliveries_total{event="` + tc.event + `",host="fake",outcome="` + tc.outcome + `"} 1`
			if !strings.Contains(out.String(), want) {
				t.Errorf("metrics lack %s:\n%s", want, out.String())
			}
		})
	}
}
