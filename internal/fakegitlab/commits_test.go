package fakegitlab

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func commitBody(branch, path, content, lastCommit string) string {
	b, _ := json.Marshal(map[string]any{"branch": branch, "commit_message": "fix\n\n- one line", "actions": []map[string]any{
		{"action": "update", "file_path": path, "content": content, "last_commit_id": lastCommit}}})
	return string(b)
}

func TestCommitsAPIWithLastCommitID(t *testing.T) {
	s := New("tok")
	t.Cleanup(s.Close)
	s.AddProject(3, "g/p")
	s.PushBranch(3, "feature", "first", map[string]string{"a.yaml": "a: 1\n", "b.yaml": "b: 1\n"})
	head := s.PushBranch(3, "feature", "second", map[string]string{"a.yaml": "a: 1\n", "b.yaml": "b: 2\n"})
	// a.yaml last changed in first; naming head (a later commit where it is
	// the same) passes.
	resp, body := call(t, s, "POST", "/projects/3/repository/commits", "tok", commitBody("feature", "a.yaml", "a: 2\n", head))
	if resp.StatusCode != 201 {
		t.Fatalf("commit: %d %s", resp.StatusCode, body)
	}
	var c struct {
		ID        string   `json:"id"`
		ParentIDs []string `json:"parent_ids"`
	}
	json.Unmarshal([]byte(body), &c)
	if s.Branch(3, "feature") != c.ID || len(c.ParentIDs) != 1 || c.ParentIDs[0] != head || s.Files(3, c.ID)["a.yaml"] != "a: 2\n" {
		t.Fatalf("branch %s, commit %+v, files %v", s.Branch(3, "feature"), c, s.Files(3, c.ID))
	}
	// a.yaml changed after head: the same last_commit_id is now stale.
	resp, body = call(t, s, "POST", "/projects/3/repository/commits", "tok", commitBody("feature", "a.yaml", "a: 3\n", head))
	if resp.StatusCode != 400 || !strings.Contains(body, "The file has changed since you started editing it: a.yaml") {
		t.Errorf("stale last_commit_id: %d %s", resp.StatusCode, body)
	}
	// b.yaml did not change since first: still fine.
	if resp, body := call(t, s, "POST", "/projects/3/repository/commits", "tok", commitBody("feature", "b.yaml", "b: 3\n", head)); resp.StatusCode != 201 {
		t.Errorf("untouched file: %d %s", resp.StatusCode, body)
	}
	if resp, body := call(t, s, "POST", "/projects/3/repository/commits", "tok", commitBody("gone", "b.yaml", "b: 3\n", "")); resp.StatusCode != 400 || !strings.Contains(body, "on a branch") {
		t.Errorf("no such branch: %d %s", resp.StatusCode, body)
	}
}

func TestCommitsAPIRefusals(t *testing.T) {
	s := New("tok")
	t.Cleanup(s.Close)
	s.AddProject(3, "g/p")
	s.AddProject(4, "forker/p")
	s.PushBranch(3, "feature", "first", map[string]string{"a.yaml": "a: 1\n"})
	s.PushBranch(4, "feature", "first", map[string]string{"a.yaml": "a: 1\n"})
	s.ProtectBranch(3, "feature")
	resp, body := call(t, s, "POST", "/projects/3/repository/commits", "tok", commitBody("feature", "a.yaml", "a: 2\n", ""))
	if resp.StatusCode != 403 || !strings.Contains(body, "You are not allowed to push into this branch") {
		t.Errorf("protected: %d %s", resp.StatusCode, body)
	}
	// The fork has members, and the token's user is none of them.
	s.SetMember(4, 99, Maintainer)
	if resp, body := call(t, s, "POST", "/projects/4/repository/commits", "tok", commitBody("feature", "a.yaml", "a: 2\n", "")); resp.StatusCode != 404 {
		t.Errorf("fork: %d %s", resp.StatusCode, body)
	}
	s.SetMember(4, s.User.ID, Reporter)
	if resp, body := call(t, s, "POST", "/projects/4/repository/commits", "tok", commitBody("feature", "a.yaml", "a: 2\n", "")); resp.StatusCode != 403 {
		t.Errorf("reporter: %d %s", resp.StatusCode, body)
	}
}

func TestMembersAndThreadReplies(t *testing.T) {
	s, _ := newServer(t)
	s.SetMember(3, 7, Reporter)
	s.SetMember(3, 8, Developer)
	for uid, want := range map[int64]string{7: `"access_level":20`, 8: `"access_level":30`} {
		resp, body := call(t, s, "GET", fmt.Sprintf("/projects/3/members/all/%d", uid), "tok", "")
		if resp.StatusCode != 200 || !strings.Contains(body, want) {
			t.Errorf("member %d: %d %s", uid, resp.StatusCode, body)
		}
	}
	if resp, _ := call(t, s, "GET", "/projects/3/members/all/9", "tok", ""); resp.StatusCode != 404 {
		t.Errorf("not a member: %d", resp.StatusCode)
	}
	s.AddNote(3, 1, User{ID: 8, Username: "dev"}, "/prodready fix", false)
	d := s.Discussions(3, 1)[0]
	resp, body := call(t, s, "POST", "/projects/3/merge_requests/1/discussions/"+d.ID+"/notes", "tok", `{"body":"done"}`)
	if resp.StatusCode != 201 {
		t.Fatalf("reply: %d %s", resp.StatusCode, body)
	}
	d = s.Discussions(3, 1)[0]
	if len(d.Notes) != 2 || d.Notes[1].Body != "done" || d.IndividualNote {
		t.Errorf("thread after the reply: %+v", d)
	}
}
