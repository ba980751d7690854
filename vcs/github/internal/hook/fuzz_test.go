package hook_test

import (
	"path/filepath"
	"testing"

	"github.com/prodready/prodready/bot/pullreq"
	"github.com/prodready/prodready/vcs/github/internal/hook"
	"github.com/prodready/prodready/vcs/github/internal/hook/hooktest"
)

// FuzzWebhook sends arbitrary deliveries through signature verification
// and event decoding, the part of a delivery's handling that reads what
// the sender wrote (vcs/github's FuzzWebhook replays the same seeds through
// the whole handler in go test). Invariants: nothing panics; a signature
// verifies exactly when it is the body's under the secret, and stops
// verifying when one byte of the body changes; a malformed header is an
// error; a decoded review is complete (owner, repository, number > 0, head
// SHA, installation, event name), and a decoding error wraps
// pullreq.ErrBadDelivery; a pull request DecodePullRequest accepts has its
// number and both commits.
func FuzzWebhook(f *testing.F) {
	hooktest.AddSeeds(f, filepath.Join("..", "..", "..", ".."))
	f.Fuzz(func(t *testing.T, event string, body []byte, mode uint8) {
		secret := []byte("fuzz-webhook-secret")
		sig, _, _, _ := hooktest.CheckDelivery(t, secret, event, body, mode)
		if _, err := hook.Signature(sig); (err == nil) != (mode%4 < 2) {
			t.Fatalf("mode %d: hook.Signature(%q) error %v", mode%4, sig, err)
		}
		if hook.VerifySignature(nil, body, sig) {
			t.Fatal("an empty secret verified a delivery")
		}
		if pr, found, err := hook.DecodePullRequest(body); err == nil && found && (pr.Number <= 0 || pr.HeadSHA == "" || pr.BaseSHA == "" || pr.Host != "github") {
			t.Fatalf("DecodePullRequest accepted an incomplete pull request %+v", pr)
		} else if err == nil && !found && pr != (pullreq.PullRequest{}) {
			t.Fatalf("DecodePullRequest found nothing but returned %+v", pr)
		}
	})
}
