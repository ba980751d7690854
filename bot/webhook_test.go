package bot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
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
		{"coalesced", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, &CoalescedError{Reason: CoalescedReviewed}, 200, "coalesced", "push"},
		{"queue full", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, ErrQueueFull, 503, "queue_full", "push"},
		{"shutting down", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, ErrShuttingDown, 503, "shutting_down", "push"},
		{"storage full", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, fmt.Errorf("stream S refused the job: %w: no space left on device", ErrStorageFull), 503, "storage_full", "push"},
		{"store unavailable", http.MethodPost, "ok", "s", strings.NewReader("{}"), &fakeIntake{jobs: job}, fmt.Errorf("%w: not connected to NATS", ErrQueueUnavailable), 503, "queue_unavailable", "push"},
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
			if tc.outcome == "coalesced" {
				want := `prodready_deliveries_coalesced_total{host="fake",reason="reviewed"} 1`
				if !strings.Contains(out.String(), want) {
					t.Errorf("metrics lack %s:\n%s", want, out.String())
				}
			}
		})
	}
}

// recordQueue records the jobs it is given.
type recordQueue struct{ jobs []Job }

func (q *recordQueue) Enqueue(j Job) error { q.jobs = append(q.jobs, j); return nil }

// TestWebhookBodyBudget: a body that does not fit in what is left of the
// budget is refused 503 before it is read; a served one gives its share
// back.
func TestWebhookBodyBudget(t *testing.T) {
	budget := NewBodyBudget(0) // raised to MaxWebhookBody
	if budget.Limit() != MaxWebhookBody {
		t.Fatalf("budget %d, want at least one largest body", budget.Limit())
	}
	q := &recordQueue{}
	m := NewMetrics()
	wh := &Webhook{Intake: &fakeIntake{jobs: []Job{{DeliveryID: "d"}}}, Secret: []byte("s"), Queue: q, Budget: budget, Metrics: m, Logger: slog.New(slog.DiscardHandler)}
	if !budget.Reserve(MaxWebhookBody - 10) {
		t.Fatal("cannot take the budget")
	}
	req := httptest.NewRequest(http.MethodPost, "/", unreadBody{t})
	req.ContentLength = 11
	req.Header.Set("X-Token", "ok")
	rec := httptest.NewRecorder()
	wh.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Connection") != "close" {
		t.Errorf("over the budget: %d, Connection %q; want 503 and the connection closed", rec.Code, rec.Header().Get("Connection"))
	}
	// A chunked body (no length) reserves the largest body: it does not fit either.
	req = httptest.NewRequest(http.MethodPost, "/", unreadBody{t})
	req.ContentLength = -1
	req.Header.Set("X-Token", "ok")
	rec = httptest.NewRecorder()
	wh.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("chunked over the budget: %d, want 503", rec.Code)
	}
	budget.Release(MaxWebhookBody - 10)

	req = httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	req.ContentLength = -1 // read without a length, up to the largest body
	req.Header.Set("X-Token", "ok")
	rec = httptest.NewRecorder()
	wh.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted || len(q.jobs) != 1 || budget.InUse() != 0 {
		t.Errorf("within the budget: %d, %d jobs, %d bytes still reserved", rec.Code, len(q.jobs), budget.InUse())
	}
	var out strings.Builder
	m.WritePrometheus(&out)
	if !strings.Contains(out.String(), `outcome="over_budget"} 2`) {
		t.Errorf("the 503s are not counted:\n%s", out.String())
	}
}

// streamIntake checks a body by what streamed through its verifier.
type streamIntake struct {
	fakeIntake
	streamed bytes.Buffer
}

func (in *streamIntake) VerifyBody(*http.Request, []byte, []byte) error {
	return errors.New("VerifyBody called on a streaming intake")
}

func (in *streamIntake) BodyVerifier(*http.Request, []byte) (io.Writer, func() error) {
	return &in.streamed, func() error {
		if in.streamed.String() == "forged" {
			return errors.New("forged")
		}
		return nil
	}
}

func TestWebhookStreamingVerifier(t *testing.T) {
	for _, tc := range []struct {
		body string
		code int
	}{{`{"ok":1}`, http.StatusAccepted}, {"forged", http.StatusUnauthorized}} {
		in := &streamIntake{fakeIntake: fakeIntake{jobs: []Job{{DeliveryID: "d"}}}}
		wh := &Webhook{Intake: in, Secret: []byte("s"), Queue: &recordQueue{}, Logger: slog.New(slog.DiscardHandler)}
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
		req.Header.Set("X-Token", "ok")
		rec := httptest.NewRecorder()
		wh.ServeHTTP(rec, req)
		if rec.Code != tc.code || in.streamed.String() != tc.body {
			t.Errorf("%q: %d, streamed %q; want %d with the whole body streamed", tc.body, rec.Code, in.streamed.String(), tc.code)
		}
	}
}

func TestBoundDeliveryID(t *testing.T) {
	guid := "72d3162e-cc78-11e3-81ab-4c9367dc0958"
	if got := BoundDeliveryID(guid); got != guid {
		t.Errorf("a GUID changed: %q", got)
	}
	long := strings.Repeat("x", MaxDeliveryID+1)
	for _, id := range []string{long, "evil\nline", "tab\there", "ünïcode"} {
		got := BoundDeliveryID(id)
		if !strings.HasPrefix(got, "sha256:") || len(got) != len("sha256:")+64 {
			t.Errorf("%q bounded to %q", id, got)
		}
		if BoundDeliveryID(id) != got || BoundDeliveryID(id+"y") == got {
			t.Errorf("%q: the bound id is not stable and distinct", id)
		}
	}
	q := &recordQueue{}
	wh := &Webhook{Intake: &fakeIntake{jobs: []Job{{DeliveryID: long}}}, Secret: []byte("s"), Queue: q, Logger: slog.New(slog.DiscardHandler)}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	req.Header.Set("X-Token", "ok")
	wh.ServeHTTP(httptest.NewRecorder(), req)
	if len(q.jobs) != 1 || q.jobs[0].DeliveryID != BoundDeliveryID(long) {
		t.Errorf("queued %+v: the webhook must bound the delivery id", q.jobs)
	}
}

// zeros is an endless body of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestRefusalBeforeTheBodyReachesTheSender: over a real connection, senders
// still writing large bodies read the answer they were refused with before
// the body was read (503 with its Retry-After over the budget, 401 on the
// headers), not a reset connection: the server reads and discards the
// rest of the body once it has answered. Closing at once lost most of
// these answers.
func TestRefusalBeforeTheBodyReachesTheSender(t *testing.T) {
	budget := NewBodyBudget(0)
	if !budget.Reserve(MaxWebhookBody) {
		t.Fatal("cannot take the budget")
	}
	srv := NewServer(nil, NewMetrics(), slog.New(slog.DiscardHandler))
	srv.Handle(http.MethodPost, "/hook", &Webhook{Intake: &fakeIntake{}, Secret: []byte("s"), Queue: &recordQueue{}, Budget: budget, Logger: slog.New(slog.DiscardHandler)})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}
	for _, tc := range []struct {
		token      string
		want       int
		retryAfter string
	}{{"ok", http.StatusServiceUnavailable, "5"}, {"forged", http.StatusUnauthorized, ""}} {
		const senders = 8
		answers := make([]string, senders)
		var wg sync.WaitGroup
		for i := range senders {
			wg.Go(func() {
				req, err := http.NewRequest(http.MethodPost, ts.URL+"/hook", io.LimitReader(zeros{}, MaxWebhookBody-1))
				if err != nil {
					answers[i] = err.Error()
					return
				}
				req.ContentLength = MaxWebhookBody - 1
				req.Header.Set("X-Token", tc.token)
				resp, err := client.Do(req)
				if err != nil {
					answers[i] = err.Error()
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				answers[i] = fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Retry-After"))
			})
		}
		wg.Wait()
		want := strings.TrimSpace(fmt.Sprintf("%d %s", tc.want, tc.retryAfter))
		for i, got := range answers {
			if strings.TrimSpace(got) != want {
				t.Errorf("X-Token %s, sender %d: %s; want %s", tc.token, i, got, want)
			}
		}
	}
}
