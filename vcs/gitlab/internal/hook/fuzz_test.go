package hook

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/vcs/gitlab/internal/hook/hooktest"

	"github.com/prodready/prodready/bot/pullreq"
)

// FuzzWebhook sends arbitrary deliveries through the token check and the
// decoding of Merge Request Hooks, the part of a delivery's handling that
// reads what the sender wrote (vcs/gitlab's FuzzWebhook replays the same
// seeds through the whole handler in go test). Invariants: nothing panics;
// a wrong, missing or truncated token never verifies and the right one
// does; a decoded review is complete (project id, IID > 0, head SHA, host
// gitlab) and asked for by open, reopen or update; a decoding error wraps
// pullreq.ErrBadDelivery.
//
// Seeds: fixtures/gitlab (ours) and ../shared/payloads/gitlab when present
// (third-party: read at fuzz time, never copied).
func FuzzWebhook(f *testing.F) {
	hooktest.AddSeeds(f, filepath.Join("..", "..", "..", ".."))
	f.Fuzz(func(t *testing.T, event string, body []byte, mode uint8) {
		secret := "fuzz-gitlab-token"
		token := hooktest.Token(secret, mode)
		if err := VerifyToken(token, []byte(secret)); (err == nil) != (token == secret) {
			t.Fatalf("token %q: VerifyToken = %v", token, err)
		}
		pr, action, ok, err := DecodeMergeRequest(event == "System Hook", body)
		if err != nil && (ok || !errors.Is(err, pullreq.ErrBadDelivery)) {
			t.Fatalf("DecodeMergeRequest: ok %v with error %v, which should wrap ErrBadDelivery", ok, err)
		}
		if ok {
			if pr.RepoID == 0 || pr.Number <= 0 || pr.HeadSHA == "" || pr.Host != "gitlab" {
				t.Fatalf("incomplete review %+v", pr)
			}
			if action != "open" && action != "reopen" && action != "update" {
				t.Fatalf("review asked for by action %q", action)
			}
		}
	})
}
