package hook

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot/pullreq"
)

// webhookSeeds are the GitHub deliveries to start fuzzing from, as
// vcs/github's FuzzWebhook (which replays them through bot.Webhook) has
// them: the repository's fixture (ours) and every payload under
// ../shared/payloads/github when present (third-party: read at fuzz time,
// never copied).
func webhookSeeds(tb testing.TB) map[string][]byte {
	root := filepath.Join("..", "..", "..", "..")
	seeds := map[string][]byte{}
	if data, err := os.ReadFile(filepath.Join(root, "fixtures", "github", "pull_request_opened.json")); err == nil {
		seeds["pull_request"] = data
	}
	files, _ := filepath.Glob(filepath.Join(root, "..", "shared", "payloads", "github", "*.json"))
	if len(files) == 0 {
		tb.Log("../shared/payloads/github absent: fuzzing from the fixture only")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		event, _, _ := strings.Cut(filepath.Base(p), ".")
		for _, e := range []string{"pull_request", "check_suite", "check_run", "installation_repositories", "installation"} {
			if strings.HasPrefix(event, e) {
				event = e
				break
			}
		}
		seeds[event+" "+filepath.Base(p)] = data
	}
	return seeds
}

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
	for name, body := range webhookSeeds(f) {
		event, _, _ := strings.Cut(name, " ")
		f.Add(event, body, uint8(0))
		f.Add(event, body, uint8(1))
	}
	f.Add("pull_request", []byte(`{"action":"opened","pull_request":null,"repository":{},"installation":{"id":1}}`), uint8(0))
	f.Add("check_suite", []byte(`{"action":"rerequested","check_suite":{"pull_requests":[{}]},"repository":{"name":"r","owner":{"login":"o"}},"installation":{"id":1}}`), uint8(0))
	f.Add("push", []byte(`[]`), uint8(2))
	f.Fuzz(func(t *testing.T, event string, body []byte, mode uint8) {
		secret := []byte("fuzz-webhook-secret")
		var sig string
		switch mode % 4 {
		case 0: // valid
			sig = Sign(secret, body)
		case 1: // another secret
			sig = Sign([]byte("other"), body)
		case 2: // truncated
			sig = Sign(secret, body)
			sig = sig[:len(sig)-1-int(mode/4)%len(sig)]
		case 3: // missing
		}
		valid := VerifySignature(secret, body, sig)
		if valid != (mode%4 == 0) {
			t.Fatalf("mode %d: VerifySignature = %v", mode%4, valid)
		}
		if _, err := Signature(sig); (err == nil) != (mode%4 < 2) {
			t.Fatalf("mode %d: Signature(%q) error %v", mode%4, sig, err)
		}
		if VerifySignature(nil, body, sig) {
			t.Fatal("an empty secret verified a delivery")
		}
		if valid {
			other := append([]byte{}, body...)
			if len(other) == 0 {
				other = append(other, 'x')
			} else {
				other[len(other)/2] ^= 1
			}
			if VerifySignature(secret, other, sig) {
				t.Fatal("the signature of one body verifies another")
			}
		}
		ev, ok, err := Decode(event, body)
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
		if pr, found, err := DecodePullRequest(body); err == nil && found && (pr.Number <= 0 || pr.HeadSHA == "" || pr.BaseSHA == "" || pr.Host != "github") {
			t.Fatalf("DecodePullRequest accepted an incomplete pull request %+v", pr)
		} else if err == nil && !found && pr != (pullreq.PullRequest{}) {
			t.Fatalf("DecodePullRequest found nothing but returned %+v", pr)
		}
	})
}
