package fakegitlab

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func call(t *testing.T, s *Server, method, path, token, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+"/api/v4"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func newServer(t *testing.T) (*Server, *MergeRequest) {
	s := New("tok")
	t.Cleanup(s.Close)
	s.AddProject(3, "g/p")
	base := s.Commit(3, map[string]string{"a.yaml": "a: 1\nb: 2\nc: 3\n"})
	head := s.Commit(3, map[string]string{"a.yaml": "a: 1\nb: 20\nc: 3\nd: 4\n"})
	return s, s.Push(3, 1, base, head, 0)
}

func TestTokenIsChecked(t *testing.T) {
	s, _ := newServer(t)
	for _, tok := range []string{"", "other"} {
		resp, body := call(t, s, "GET", "/user", tok, "")
		if resp.StatusCode != 401 || !strings.Contains(body, "401 Unauthorized") {
			t.Errorf("token %q: %d %s, want 401", tok, resp.StatusCode, body)
		}
	}
	if resp, _ := call(t, s, "GET", "/user", "tok", ""); resp.StatusCode != 200 {
		t.Errorf("right token: %d", resp.StatusCode)
	}
	if c := s.Calls(); len(c) != 3 || c[0].Status != 401 || c[2].Status != 200 {
		t.Errorf("calls not recorded: %+v", c)
	}
}

func TestPaginationHeaders(t *testing.T) {
	s, _ := newServer(t)
	for i := 0; i < 5; i++ {
		s.AddNote(3, 1, s.User, "n", false)
	}
	resp, body := call(t, s, "GET", "/projects/g%2Fp/merge_requests/1/discussions?per_page=2&page=2", "tok", "")
	h := resp.Header
	if h.Get("X-Page") != "2" || h.Get("X-Next-Page") != "3" || h.Get("X-Prev-Page") != "1" || h.Get("X-Total-Pages") != "3" || h.Get("X-Total") != "5" || h.Get("X-Per-Page") != "2" {
		t.Errorf("headers %v", h)
	}
	if l := h.Get("Link"); !strings.Contains(l, `rel="next"`) || !strings.Contains(l, "page=3") || !strings.Contains(l, `rel="first"`) || !strings.Contains(l, `rel="last"`) {
		t.Errorf("Link = %s", l)
	}
	var page []Discussion
	json.Unmarshal([]byte(body), &page)
	if len(page) != 2 {
		t.Errorf("page of %d, want 2", len(page))
	}
	resp, _ = call(t, s, "GET", "/projects/3/merge_requests/1/discussions?per_page=2&page=3", "tok", "")
	if resp.Header.Get("X-Next-Page") != "" {
		t.Errorf("last page has X-Next-Page %q", resp.Header.Get("X-Next-Page"))
	}
}

func TestDiscussionPositionsAreCheckedLikeGitLab(t *testing.T) {
	s, mr := newServer(t)
	code := func(old, new int) string { return LineCode("a.yaml", old, new) }
	pos := func(extra string) string {
		return `{"body":"x","position":{"position_type":"text","base_sha":"` + mr.BaseSHA + `","start_sha":"` + mr.StartSHA +
			`","head_sha":"` + mr.HeadSHA + `","old_path":"a.yaml","new_path":"a.yaml"` + extra + `}}`
	}
	// The diff: " a: 1", "-b: 2", "+b: 20", " c: 3", "+d: 4": new lines 2 and 4 are added.
	for _, tc := range []struct {
		name, body string
		code       int
	}{
		{"added line", pos(`,"new_line":2`), 201},
		{"context line with old_line", pos(`,"new_line":3,"old_line":3`), 201},
		{"context line without old_line", pos(`,"new_line":3`), 400},
		{"added line with an old_line", pos(`,"new_line":2,"old_line":2`), 400},
		{"outside the diff", pos(`,"new_line":40`), 400},
		{"no line", pos(``), 400},
		{"wrong head", strings.Replace(pos(`,"new_line":2`), mr.HeadSHA, strings.Repeat("0", 40), 1), 400},
		{"unknown path", strings.Replace(pos(`,"new_line":2`), `"new_path":"a.yaml"`, `"new_path":"b.yaml"`, 1), 400},
		{"line range", pos(`,"new_line":2,"line_range":{"start":{"line_code":"` + code(3, 2) + `","type":"new","new_line":2},"end":{"line_code":"` + code(3, 3) + `","old_line":3,"new_line":3}}`), 201},
		{"line range, wrong code", pos(`,"new_line":2,"line_range":{"start":{"line_code":"` + code(2, 2) + `","type":"new","new_line":2},"end":{"line_code":"` + code(3, 3) + `","old_line":3,"new_line":3}}`), 400},
		{"line range backwards", pos(`,"new_line":2,"line_range":{"start":{"line_code":"` + code(3, 3) + `","old_line":3,"new_line":3},"end":{"line_code":"` + code(3, 2) + `","type":"new","new_line":2}}`), 400},
	} {
		resp, body := call(t, s, "POST", "/projects/3/merge_requests/1/discussions", "tok", tc.body)
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, resp.StatusCode, body, tc.code)
		}
		if tc.code == 400 && !strings.Contains(body, "line_code") {
			t.Errorf("%s: 400 body %s does not name line_code", tc.name, body)
		}
	}
}

func TestStatusTransitionsAndResolve(t *testing.T) {
	s, mr := newServer(t)
	path := "/projects/3/statuses/" + mr.HeadSHA
	for _, tc := range []struct {
		state string
		code  int
	}{{"pending", 201}, {"pending", 400}, {"success", 201}, {"success", 400}, {"pending", 201}, {"bogus", 400}} {
		resp, body := call(t, s, "POST", path, "tok", `{"state":"`+tc.state+`","name":"prodready"}`)
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.state, resp.StatusCode, body, tc.code)
		}
		if tc.code == 400 && tc.state == "pending" && !strings.Contains(body, "Cannot transition status via :enqueue from :pending") {
			t.Errorf("same-state answer %s", body)
		}
	}
	resp, _ := call(t, s, "POST", "/projects/3/statuses/"+strings.Repeat("f", 40), "tok", `{"state":"pending"}`)
	if resp.StatusCode != 404 {
		t.Errorf("status on an unknown commit: %d, want 404", resp.StatusCode)
	}
	_, body := call(t, s, "POST", "/projects/3/merge_requests/1/discussions", "tok", `{"body":"general"}`)
	var d Discussion
	json.Unmarshal([]byte(body), &d)
	if resp, _ := call(t, s, "PUT", "/projects/3/merge_requests/1/discussions/"+d.ID+"?resolved=true", "tok", ""); resp.StatusCode != 200 {
		t.Errorf("resolve by query: %d", resp.StatusCode)
	}
	if !s.Discussions(3, 1)[0].Notes[0].Resolved {
		t.Error("not resolved")
	}
	s.AddNote(3, 1, User{ID: 9}, "someone else's", false)
	id := s.Discussions(3, 1)[1].Notes[0].ID
	if resp, _ := call(t, s, "PUT", "/projects/3/merge_requests/1/notes/"+jsonNum(id), "tok", `{"body":"edit"}`); resp.StatusCode != 403 {
		t.Errorf("editing another user's note: %d, want 403", resp.StatusCode)
	}
}

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }
