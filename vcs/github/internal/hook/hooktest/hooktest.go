// Package hooktest holds what GitHub's two webhook fuzz targets share (the
// decoding's, in package hook, and the whole handler's, in vcs/github):
// the deliveries they start from, the signature each fuzzed mode sends, and
// the invariants both hold a delivery's signature and decoding to.
package hooktest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot/pullreq"
	"github.com/prodready/prodready/vcs/github/internal/hook"
)

// AddSeeds adds to f the deliveries to start fuzzing from, each with modes
// 0 and 1, and three hand-made ones: the repository's fixture (ours) and
// every payload under ../shared/payloads/github when present (third-party:
// read at fuzz time, never copied). root is the repository's root,
// relative to the test's folder.
func AddSeeds(f *testing.F, root string) {
	for name, body := range seeds(f, root) {
		event, _, _ := strings.Cut(name, " ")
		f.Add(event, body, uint8(0))
		f.Add(event, body, uint8(1))
	}
	f.Add("pull_request", []byte(`{"action":"opened","pull_request":null,"repository":{},"installation":{"id":1}}`), uint8(0))
	f.Add("check_suite", []byte(`{"action":"rerequested","check_suite":{"pull_requests":[{}]},"repository":{"name":"r","owner":{"login":"o"}},"installation":{"id":1}}`), uint8(0))
	f.Add("push", []byte(`[]`), uint8(2))
}

// seeds are the deliveries by event and file name.
func seeds(tb testing.TB, root string) map[string][]byte {
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

// Signature returns the signature header a fuzzed delivery sends, by
// mode%4: 0 body's under secret, 1 under another secret, 2 the valid one
// truncated (by mode/4 more characters), 3 none.
func Signature(secret, body []byte, mode uint8) string {
	switch mode % 4 {
	case 0:
		return hook.Sign(secret, body)
	case 1:
		return hook.Sign([]byte("other"), body)
	case 2:
		sig := hook.Sign(secret, body)
		return sig[:len(sig)-1-int(mode/4)%len(sig)]
	}
	return ""
}

// CheckDelivery holds a fuzzed delivery's signature and decoding to what
// both targets require: the signature mode sends verifies exactly in mode
// 0 and stops verifying when one byte of the body changes; a decoding
// error wraps pullreq.ErrBadDelivery; a decoded review is complete (owner,
// repository, number > 0, head SHA, installation, event name). It returns
// the signature header, whether it verifies, and the review (ok false when
// the delivery starts none).
func CheckDelivery(t *testing.T, secret []byte, event string, body []byte, mode uint8) (sig string, valid bool, ev hook.Event, ok bool) {
	t.Helper()
	sig = Signature(secret, body, mode)
	valid = hook.VerifySignature(secret, body, sig)
	if valid != (mode%4 == 0) {
		t.Fatalf("mode %d: VerifySignature = %v", mode%4, valid)
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
	return sig, valid, ev, ok
}
