package github_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/prodready/prodready/bot"
	ghv "github.com/prodready/prodready/vcs/github"
	"github.com/prodready/prodready/vcs/github/internal/hook/hooktest"
)

// jobQueue is a bot.Enqueuer that keeps the jobs it is given.
type jobQueue struct {
	mu   sync.Mutex
	jobs []bot.Job
}

func (q *jobQueue) Enqueue(j bot.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, j)
	return nil
}

// FuzzWebhook sends arbitrary deliveries through signature verification,
// event decoding and the webhook handler. Invariants: nothing panics; the
// answer is one of 200, 202, 400, 401, 413; a delivery is queued only with
// a valid signature and as a complete job (owner, repository, number > 0,
// head SHA, installation); a bad or missing signature is 401 and queues
// nothing; a valid signature stops verifying when one byte of the body
// changes; the secret never appears in the logs.
//
// go test replays its seeds and testdata/fuzz through the whole handler.
// CI's short fuzz pass (make fuzz) explores internal/hook's FuzzWebhook,
// the signature check and decoding from the same seeds, instead: this
// target's binary instruments 917 packages, that one's 131. Fuzz this one
// too with make fuzz FUZZ_TARGETS=./vcs/github:FuzzWebhook.
func FuzzWebhook(f *testing.F) {
	hooktest.AddSeeds(f, filepath.Join("..", ".."))
	metrics := bot.NewMetrics() // shared: it is safe for concurrent use
	f.Fuzz(func(t *testing.T, event string, body []byte, mode uint8) {
		secret := []byte("fuzz-webhook-secret")
		sig, valid, ev, ok := hooktest.CheckDelivery(t, secret, event, body, mode)

		var logs bytes.Buffer
		q := &jobQueue{}
		wh := &bot.Webhook{
			Intake:  ghv.Intake{HostFor: func(int64) (bot.Host, error) { return nil, nil }},
			Secret:  secret,
			Queue:   q,
			Metrics: metrics,
			Logger:  slog.New(slog.NewJSONHandler(&logs, nil)),
		}
		req := httptest.NewRequest(http.MethodPost, "/webhooks/github", bytes.NewReader(body))
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", "fuzz-1")
		if sig != "" {
			req.Header.Set("X-Hub-Signature-256", sig)
		}
		rec := httptest.NewRecorder()
		wh.ServeHTTP(rec, req)
		io.Copy(io.Discard, rec.Body)
		// What the intake makes of it: a review (Decode above) or a press
		// of one of the bot's requested actions (a fix job).
		in := ghv.Intake{HostFor: func(int64) (bot.Host, error) { return nil, nil }}
		jobs, ierr := in.Decode(req, body)
		switch code := rec.Code; {
		case !valid && code != http.StatusUnauthorized:
			t.Fatalf("unverified delivery answered %d, want 401", code)
		case valid && ierr != nil && code != http.StatusBadRequest:
			t.Fatalf("undecodable delivery answered %d, want 400", code)
		case valid && ierr == nil && len(jobs) > 0 && code != http.StatusAccepted:
			t.Fatalf("reviewable delivery answered %d, want 202", code)
		case valid && ierr == nil && len(jobs) == 0 && code != http.StatusOK:
			t.Fatalf("ignored delivery answered %d, want 200", code)
		}
		if want := 0; ok && valid {
			want = 1
			if len(q.jobs) != want || q.jobs[0].PR != ev.PR || q.jobs[0].DeliveryID != "fuzz-1" {
				t.Fatalf("queued %+v, want one job for %+v", q.jobs, ev.PR)
			}
		} else if valid && ierr == nil && len(jobs) > 0 {
			if len(q.jobs) != 1 || q.jobs[0].Fix == nil || q.jobs[0].Installation == 0 {
				t.Fatalf("queued %+v, want the one fix job of a press", q.jobs)
			}
		} else if len(q.jobs) != 0 {
			t.Fatalf("queued %d jobs for a delivery that starts no review", len(q.jobs))
		}
		if bytes.Contains(logs.Bytes(), secret) {
			t.Fatalf("the webhook secret is in the logs: %s", logs.String())
		}
	})
}
