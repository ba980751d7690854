package hook

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

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
	root := filepath.Join("..", "..", "..", "..")
	paths, _ := filepath.Glob(filepath.Join(root, "fixtures", "gitlab", "*.json"))
	shared, _ := filepath.Glob(filepath.Join(root, "..", "shared", "payloads", "gitlab", "*.json"))
	if len(shared) == 0 {
		f.Log("../shared/payloads/gitlab absent: fuzzing from fixtures/gitlab only")
	}
	for _, p := range append(paths, shared...) {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, ev := range []string{"Merge Request Hook", "System Hook"} {
			f.Add(ev, data, uint8(0))
		}
		f.Add("Merge Request Hook", data, uint8(1))
		f.Add("Merge Request Hook", data, uint8(2))
	}
	f.Add("Merge Request Hook", []byte(`{"object_kind":"merge_request","project":{"id":1},"object_attributes":{"iid":1,"action":"open","last_commit":{"id":"x"}}}`), uint8(0))
	f.Add("Push Hook", []byte(`{}`), uint8(3))
	f.Fuzz(func(t *testing.T, event string, body []byte, mode uint8) {
		secret := "fuzz-gitlab-token"
		token := secret
		switch mode % 4 {
		case 1: // another token
			token = "not-the-token"
		case 2: // truncated
			token = secret[:int(mode/4)%len(secret)]
		case 3: // missing
			token = ""
		}
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
