package fakegithub

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

func newFake(t *testing.T) (*Server, *rsa.PrivateKey) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s := New(7, &k.PublicKey)
	t.Cleanup(s.Close)
	s.AddCommit("o", "r", "base", map[string]string{"a.yaml": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"})
	s.AddCommit("o", "r", "head", map[string]string{"a.yaml": "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n10\n"})
	s.SetPR("o", "r", 1, "base", "head")
	return s, k
}

func call(t *testing.T, s *Server, method, path, token string, body any) (int, http.Header, string) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, strings.TrimSuffix(s.URL, "/")+path, rd)
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, resp.Header, b.String()
}

func token(t *testing.T, s *Server, k *rsa.PrivateKey, iss string) (int, string) {
	t.Helper()
	now := time.Now()
	jt := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{Issuer: iss, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute))})
	signed, err := jt.SignedString(k)
	if err != nil {
		t.Fatal(err)
	}
	code, _, body := call(t, s, "POST", "/app/installations/3/access_tokens", "Bearer "+signed, nil)
	var m struct{ Token string }
	json.Unmarshal([]byte(body), &m)
	return code, m.Token
}

func TestFakeAuth(t *testing.T) {
	s, k := newFake(t)
	if code, _ := token(t, s, k, "8"); code != http.StatusUnauthorized {
		t.Errorf("JWT of another app: %d", code)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	if code, _ := token(t, s, other, "7"); code != http.StatusUnauthorized {
		t.Errorf("JWT signed with another key: %d", code)
	}
	code, tok := token(t, s, k, "7")
	if code != http.StatusCreated || tok == "" {
		t.Fatalf("good JWT: %d", code)
	}
	if code, _, _ := call(t, s, "GET", "/repos/o/r/pulls/1/files", "", nil); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	code, h, _ := call(t, s, "GET", "/repos/o/r/pulls/1/files", "token "+tok, nil)
	if code != http.StatusOK || h.Get("X-RateLimit-Remaining") == "" {
		t.Errorf("with token: %d, headers %v", code, h)
	}
}

func TestFakeReviewRules(t *testing.T) {
	s, k := newFake(t)
	_, tok := token(t, s, k, "7")
	auth := "token " + tok
	review := func(c map[string]any) int {
		code, _, _ := call(t, s, "POST", "/repos/o/r/pulls/1/reviews", auth, map[string]any{"commit_id": "head", "event": "COMMENT", "body": "b", "comments": []any{c}})
		return code
	}
	// The hunk shows lines 2..8 of the new side; line 5 is added.
	for _, tc := range []struct {
		c    map[string]any
		want int
	}{
		{map[string]any{"path": "a.yaml", "line": 5, "side": "RIGHT", "body": "x"}, 200},
		{map[string]any{"path": "a.yaml", "line": 8, "side": "RIGHT", "body": "x"}, 200},
		{map[string]any{"path": "a.yaml", "line": 9, "side": "RIGHT", "body": "x"}, 422},
		{map[string]any{"path": "b.yaml", "line": 5, "side": "RIGHT", "body": "x"}, 422},
		{map[string]any{"path": "a.yaml", "start_line": 5, "line": 5, "side": "RIGHT", "start_side": "RIGHT", "body": "x"}, 422},
		{map[string]any{"path": "a.yaml", "start_line": 6, "line": 5, "side": "RIGHT", "start_side": "RIGHT", "body": "x"}, 422},
		{map[string]any{"path": "a.yaml", "start_line": 4, "line": 6, "side": "RIGHT", "start_side": "RIGHT", "body": "x"}, 200},
		{map[string]any{"path": "a.yaml", "start_line": 1, "line": 6, "side": "RIGHT", "start_side": "RIGHT", "body": "x"}, 422},
	} {
		if got := review(tc.c); got != tc.want {
			t.Errorf("comment %v: %d, want %d", tc.c, got, tc.want)
		}
	}
	if n := len(s.Reviews("o", "r")); n != 3 {
		t.Errorf("reviews kept = %d, want 3 (a refused review keeps nothing)", n)
	}
}

func TestFakeAnnotationsAndPaging(t *testing.T) {
	s, k := newFake(t)
	_, tok := token(t, s, k, "7")
	auth := "token " + tok
	code, _, body := call(t, s, "POST", "/repos/o/r/check-runs", auth, map[string]any{"name": "c", "head_sha": "head", "status": "in_progress"})
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	var run struct{ ID int64 }
	json.Unmarshal([]byte(body), &run)
	anns := func(n int) []any {
		var out []any
		for i := 0; i < n; i++ {
			out = append(out, map[string]any{"path": "a.yaml", "start_line": 1, "end_line": 1, "annotation_level": "warning", "message": "m"})
		}
		return out
	}
	path := "/repos/o/r/check-runs/" + strconv.FormatInt(run.ID, 10)
	if code, _, _ := call(t, s, "PATCH", path, auth, map[string]any{"output": map[string]any{"title": "t", "summary": "s", "annotations": anns(51)}}); code != 422 {
		t.Errorf("51 annotations: %d, want 422", code)
	}
	for i := 0; i < 2; i++ {
		if code, _, _ := call(t, s, "PATCH", path, auth, map[string]any{"output": map[string]any{"title": "t", "summary": "s", "annotations": anns(50)}}); code != 200 {
			t.Errorf("50 annotations: %d", code)
		}
	}
	if got := len(s.CheckRuns("o", "r")[0].Annotations); got != 100 {
		t.Errorf("annotations kept = %d, want 100 (appended)", got)
	}
	s.MaxPerPage = 1
	s.AddCommit("o", "r", "head2", map[string]string{"a.yaml": "x\n", "b.yaml": "y\n"})
	s.SetPR("o", "r", 1, "base", "head2")
	code, h, body := call(t, s, "GET", "/repos/o/r/pulls/1/files?per_page=100", auth, nil)
	if code != 200 || !strings.Contains(h.Get("Link"), `rel="next"`) || !strings.Contains(body, "a.yaml") || strings.Contains(body, "b.yaml") {
		t.Errorf("page 1: %d link %q body %s", code, h.Get("Link"), body)
	}
	s.Inject(Fault{Method: "GET", PathPrefix: "/repos/o/r/pulls", Secondary: true, Times: 1})
	code, h, body = call(t, s, "GET", "/repos/o/r/pulls/1/files?page=2", auth, nil)
	if code != 403 || h.Get("Retry-After") == "" || !strings.Contains(body, "secondary rate limit") {
		t.Errorf("injected secondary limit: %d %v %s", code, h, body)
	}
	calls := s.Calls()
	if last := calls[len(calls)-1]; fmt.Sprint(last) != "GET /repos/o/r/pulls/1/files 403" {
		t.Errorf("last call recorded as %s", last)
	}
}

// TestFakeCollaboratorPermission answers as GitHub documents: the legacy
// permission (maintain as write, triage as read) beside the role's name,
// read for a user who is no collaborator of a public repository, 404 for
// a login that is no user, and nothing without a token.
func TestFakeCollaboratorPermission(t *testing.T) {
	s, k := newFake(t)
	_, tok := token(t, s, k, "7")
	s.SetCollaborator("o", "r", "Ann", "maintain")
	s.SetCollaborator("o", "r", "tri", "triage")
	s.SetCollaborator("o", "r", "passer", "")
	for _, tc := range []struct {
		login      string
		code       int
		perm, role string
	}{
		{"ann", 200, "write", "maintain"},
		{"tri", 200, "read", "triage"},
		{"passer", 200, "read", "read"},
		{"ghost", 404, "", ""},
	} {
		code, _, body := call(t, s, "GET", "/repos/o/r/collaborators/"+tc.login+"/permission", "token "+tok, nil)
		var m struct {
			Permission string `json:"permission"`
			RoleName   string `json:"role_name"`
		}
		json.Unmarshal([]byte(body), &m)
		if code != tc.code || m.Permission != tc.perm || m.RoleName != tc.role {
			t.Errorf("%s: %d %+v, want %d %s/%s", tc.login, code, m, tc.code, tc.perm, tc.role)
		}
	}
	if code, _, _ := call(t, s, "GET", "/repos/o/r/collaborators/ann/permission", "", nil); code != http.StatusUnauthorized {
		t.Errorf("without a token: %d", code)
	}
}
