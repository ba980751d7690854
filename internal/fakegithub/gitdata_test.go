package fakegithub

import (
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

func jwtFor(t *testing.T, k *rsa.PrivateKey, iss string) string {
	t.Helper()
	now := time.Now()
	signed, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{Issuer: iss, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute))}).SignedString(k)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// commitOnTop makes a blob, a tree on head's tree and a commit whose
// parent is head, through the Git Data API, and returns the commit's SHA.
func commitOnTop(t *testing.T, s *Server, auth, head, content string) string {
	t.Helper()
	code, _, body := call(t, s, "GET", "/repos/o/r/git/commits/"+head, auth, nil)
	if code != http.StatusOK {
		t.Fatalf("get commit: %d %s", code, body)
	}
	var c struct {
		Tree struct{ SHA string }
	}
	json.Unmarshal([]byte(body), &c)
	code, _, body = call(t, s, "POST", "/repos/o/r/git/blobs", auth, map[string]any{"content": content, "encoding": "utf-8"})
	if code != http.StatusCreated {
		t.Fatalf("blob: %d %s", code, body)
	}
	var b struct{ SHA string }
	json.Unmarshal([]byte(body), &b)
	code, _, body = call(t, s, "POST", "/repos/o/r/git/trees", auth, map[string]any{"base_tree": c.Tree.SHA, "tree": []map[string]any{{"path": "a.yaml", "mode": "100644", "type": "blob", "sha": b.SHA}}})
	if code != http.StatusCreated {
		t.Fatalf("tree: %d %s", code, body)
	}
	var tr struct{ SHA string }
	json.Unmarshal([]byte(body), &tr)
	code, _, body = call(t, s, "POST", "/repos/o/r/git/commits", auth, map[string]any{"message": "fix", "tree": tr.SHA, "parents": []string{head}})
	if code != http.StatusCreated {
		t.Fatalf("commit: %d %s", code, body)
	}
	var nc struct{ SHA string }
	json.Unmarshal([]byte(body), &nc)
	return nc.SHA
}

func TestGitDataCommitAndFastForward(t *testing.T) {
	s, k := newFake(t)
	s.SetBranch("o", "r", "feature", "head")
	s.SetParents("o", "r", "head", "head", "base")
	_, tok := token(t, s, k, "7")
	auth := "token " + tok
	// Installation 3 may read contents only: every write answers 403.
	code, _, body := call(t, s, "POST", "/repos/o/r/git/blobs", auth, map[string]any{"content": "x"})
	if code != http.StatusForbidden || !strings.Contains(body, "Resource not accessible by integration") {
		t.Fatalf("blob with contents read: %d %s", code, body)
	}
	s.SetPermissions(3, map[string]string{"contents": "write"})
	sha := commitOnTop(t, s, auth, "head", "fixed\n")
	info, files, ok := s.Commit("o", "r", sha)
	if !ok || files["a.yaml"] != "fixed\n" || len(info.Parents) != 1 || info.Parents[0] != "head" || info.Author != BotLogin {
		t.Fatalf("commit %s: %+v %v", sha, info, files)
	}
	code, _, body = call(t, s, "PATCH", "/repos/o/r/git/refs/heads/feature", auth, map[string]any{"sha": sha, "force": false})
	if code != http.StatusOK || s.Branch("o", "r", "feature") != sha {
		t.Fatalf("fast-forward: %d %s", code, body)
	}
	code, _, body = call(t, s, "GET", "/repos/o/r/git/ref/heads/feature", auth, nil)
	if code != http.StatusOK || !strings.Contains(body, sha) {
		t.Fatalf("get ref: %d %s", code, body)
	}
	if code, _, _ := call(t, s, "GET", "/repos/o/r/git/ref/heads/nope", auth, nil); code != http.StatusNotFound {
		t.Errorf("missing ref: %d", code)
	}
}

func TestGitDataRefusals(t *testing.T) {
	s, k := newFake(t)
	s.SetBranch("o", "r", "feature", "head")
	s.SetPermissions(3, map[string]string{"contents": "write"})
	_, tok := token(t, s, k, "7")
	auth := "token " + tok
	mine := commitOnTop(t, s, auth, "head", "mine\n")
	// Someone pushes first: the commit made on head no longer descends
	// from the branch.
	s.Push("o", "r", "feature", "theirs", map[string]string{"a.yaml": "theirs\n"})
	code, _, body := call(t, s, "PATCH", "/repos/o/r/git/refs/heads/feature", auth, map[string]any{"sha": mine, "force": false})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Update is not a fast forward") || s.Branch("o", "r", "feature") != "theirs" {
		t.Fatalf("stale update: %d %s, branch at %s", code, body, s.Branch("o", "r", "feature"))
	}
	// On top of theirs it is a fast forward, unless the branch is protected.
	s.ProtectBranch("o", "r", "feature")
	onTheirs := commitOnTop(t, s, auth, "theirs", "mine\n")
	code, _, body = call(t, s, "PATCH", "/repos/o/r/git/refs/heads/feature", auth, map[string]any{"sha": onTheirs})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Changes must be made through a pull request") {
		t.Fatalf("protected: %d %s", code, body)
	}
	// An installation limited to another repository cannot write this one
	// (a fork's head repository).
	s.SetRepositories(3, "upstream/r")
	code, _, body = call(t, s, "POST", "/repos/o/r/git/blobs", auth, map[string]any{"content": "x"})
	if code != http.StatusForbidden || !strings.Contains(body, "Resource not accessible by integration") {
		t.Fatalf("repository outside the installation: %d %s", code, body)
	}
	if code, _, _ := call(t, s, "GET", "/repos/o/r/git/commits/head", auth, nil); code != http.StatusOK {
		t.Errorf("reading it still works (a public fork): %d", code)
	}
}

func TestInstallationPermissions(t *testing.T) {
	s, k := newFake(t)
	s.SetPermissions(3, map[string]string{"contents": "write", "checks": "write"})
	code, _, body := call(t, s, "GET", "/app/installations/3", "token nope", nil)
	if code != http.StatusUnauthorized {
		t.Fatalf("without the app's JWT: %d %s", code, body)
	}
	_, tok := token(t, s, k, "7")
	if code, _, _ := call(t, s, "GET", "/app/installations/3", "Bearer "+tok, nil); code != http.StatusUnauthorized {
		t.Errorf("an installation token is no JWT: %d", code)
	}
	code, _, body = call(t, s, "POST", "/app/installations/3/access_tokens", "Bearer "+jwtFor(t, k, "7"), nil)
	if code != http.StatusCreated || !strings.Contains(body, `"contents":"write"`) {
		t.Errorf("token permissions: %d %s", code, body)
	}
	code, _, body = call(t, s, "GET", "/app/installations/3", "Bearer "+jwtFor(t, k, "7"), nil)
	if code != http.StatusOK || !strings.Contains(body, `"contents":"write"`) {
		t.Errorf("installation: %d %s", code, body)
	}
}
