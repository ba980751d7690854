package hook_test

import (
	"errors"
	"path/filepath"
	"strings"
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
		sig := hooktest.Signature(secret, body, mode)
		valid := hook.VerifySignature(secret, body, sig)
		if valid != (mode%4 == 0) {
			t.Fatalf("mode %d: VerifySignature = %v", mode%4, valid)
		}
		if _, err := hook.Signature(sig); (err == nil) != (mode%4 < 2) {
			t.Fatalf("mode %d: hook.Signature(%q) error %v", mode%4, sig, err)
		}
		if hook.VerifySignature(nil, body, sig) {
			t.Fatal("an empty secret verified a delivery")
		}
		if valid {
			other := append([]byte{}, body...)
			if len(other) == 0 {
				other = append(other, 'x')
			} else {
				other[len(other)/2] ^= 1
			}
			if hook.VerifySignature(secret, other, sig) {
				t.Fatal("the signature of one body verifies another")
			}
		}
		ev, ok, err := hook.Decode(event, body)
		if err != nil && (ok || !errors.Is(err, pullreq.ErrBadDelivery)) {
			t.Fatalf("Decode: ok %v with error %v, which should wrap ErrBadDelivery", ok, err)
		}
		if ok {
			pr := ev.PR
			owner, name, _ := strings.Cut(pr.Repo, "/")
			if ev.Name == "" || !strings.HasPrefix(ev.Name, event+".") || owner == "" || name == "" || pr.Number <= 0 || pr.HeadSHA == "" || ev.Installation == 0 || pr.Host != "github" {
				t.Fatalf("incomplete review %+v name %q", ev, ev.Name)
			}
		}
		if pr, found, err := hook.DecodePullRequest(body); err == nil && found && (pr.Number <= 0 || pr.HeadSHA == "" || pr.BaseSHA == "" || pr.Host != "github") {
			t.Fatalf("DecodePullRequest accepted an incomplete pull request %+v", pr)
		} else if err == nil && !found && pr != (pullreq.PullRequest{}) {
			t.Fatalf("DecodePullRequest found nothing but returned %+v", pr)
		}
	})
}
