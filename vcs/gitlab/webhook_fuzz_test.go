package gitlab

import (
	"bytes"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/vcs/gitlab/internal/hook/hooktest"

	"github.com/prodready/prodready/bot"
)

// FuzzWebhook sends arbitrary Merge Request Hook deliveries through the
// token check and decoding. Invariants: nothing panics; a wrong, missing or
// truncated token is 401 and queues nothing; the answer is one of 200, 202,
// 400, 401; a queued job is complete (project id, IID > 0, head SHA, a
// "gitlab:" delivery id); the token never appears in the logs.
//
// Seeds: fixtures/gitlab (ours) and ../shared/payloads/gitlab when present
// (third-party: read at fuzz time, never copied).
//
// go test replays its seeds through the whole handler. CI's short fuzz
// pass (make fuzz) explores internal/hook's FuzzWebhook, the token check
// and decoding from the same seeds, instead: this target's binary
// instruments 920 packages, that one's about 130. Fuzz this one too with
// make fuzz FUZZ_TARGETS=./vcs/gitlab:FuzzWebhook.
func FuzzWebhook(f *testing.F) {
	hooktest.AddSeeds(f, filepath.Join("..", ".."))
	metrics := bot.NewMetrics() // shared: it is safe for concurrent use
	f.Fuzz(func(t *testing.T, event string, body []byte, mode uint8) {
		secret := "fuzz-gitlab-token"
		token := hooktest.Token(secret, mode)
		var logs bytes.Buffer
		q := &recordingQueue{}
		wh := newWebhook([]byte(secret), nil, q)
		wh.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
		wh.Metrics = metrics
		rec := deliver(wh, token, event, body, map[string]string{"Idempotency-Key": "k"})
		valid := token == secret
		switch code := rec.Code; {
		case !valid && code != http.StatusUnauthorized:
			t.Fatalf("bad token answered %d, want 401", code)
		case valid && code != http.StatusOK && code != http.StatusAccepted && code != http.StatusBadRequest:
			t.Fatalf("answered %d", code)
		}
		if len(q.jobs) > 0 {
			j := q.jobs[0]
			if !valid || rec.Code != http.StatusAccepted || len(q.jobs) != 1 {
				t.Fatalf("queued %d jobs, answered %d, valid token %v", len(q.jobs), rec.Code, valid)
			}
			if j.PR.RepoID == 0 || j.PR.Number <= 0 || j.PR.HeadSHA == "" || j.DeliveryID != "gitlab:k" || j.PR.Host != "gitlab" || !strings.HasPrefix(j.Event, "merge_request.") {
				t.Fatalf("incomplete job %+v", j)
			}
		} else if rec.Code == http.StatusAccepted {
			t.Fatal("202 without a queued job")
		}
		if bytes.Contains(logs.Bytes(), []byte(secret)) {
			t.Fatalf("the token is in the logs: %s", logs.String())
		}
	})
}
