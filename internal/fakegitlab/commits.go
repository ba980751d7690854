package fakegitlab

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Access levels of project members, as GitLab numbers them.
const (
	Guest      = 10
	Reporter   = 20
	Developer  = 30
	Maintainer = 40
	Owner      = 50
)

// gitProject is a project's Git state beyond its trees: branches, commit
// parents and messages, protected branches and members.
type gitProject struct {
	branches  map[string]string   // branch -> commit
	parents   map[string][]string // commit -> parents
	messages  map[string]string   // commit -> message
	protected map[string]bool
	// members maps user id to access level; nil: the token's user is a
	// Maintainer and nobody else is a member.
	members map[int64]int
}

// gitOf returns project id's Git state (under s.mu).
func (s *Server) gitOf(id int64) *gitProject {
	if s.git == nil {
		s.git = map[int64]*gitProject{}
	}
	g := s.git[id]
	if g == nil {
		g = &gitProject{branches: map[string]string{}, parents: map[string][]string{}, messages: map[string]string{}, protected: map[string]bool{}}
		s.git[id] = g
	}
	return g
}

// SetBranch points branch of project id at commit sha.
func (s *Server) SetBranch(id int64, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gitOf(id).branches[branch] = sha
}

// Branch returns the commit branch of project id points at ("" for none).
func (s *Server) Branch(id int64, branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gitOf(id).branches[branch]
}

// PushBranch adds a commit of files to project id on branch (its parent
// the branch's commit), moves the branch to it and returns its SHA, as a
// person's git push would.
func (s *Server) PushBranch(id int64, branch, message string, files map[string]string) string {
	parent := s.Branch(id, branch)
	h := sha1.New()
	fmt.Fprintf(h, "%s\x00%s\x00", parent, message)
	for _, k := range sortedKeys(files) {
		fmt.Fprintf(h, "%s\x00%s\x00", k, files[k])
	}
	sha := hex.EncodeToString(h.Sum(nil))
	s.CommitAs(id, sha, files)
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gitOf(id)
	if parent != "" {
		g.parents[sha] = []string{parent}
	}
	g.messages[sha] = message
	g.branches[branch] = sha
	return sha
}

// CommitMessage returns the message and parents of commit sha of project id.
func (s *Server) CommitMessage(id int64, sha string) (string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gitOf(id)
	return g.messages[sha], append([]string(nil), g.parents[sha]...)
}

// Files returns the files of commit sha of project id (a copy).
func (s *Server) Files(id int64, sha string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.projects[id].Commits[sha] {
		out[k] = v
	}
	return out
}

// ProtectBranch makes branch of project id protected with nobody allowed
// to push: the commits API answers 403.
func (s *Server) ProtectBranch(id int64, branch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gitOf(id).protected[branch] = true
}

// SetMember gives user userID access level level on project id. Once a
// project has members, the token's user has only the access SetMember
// gives it (none: the project answers 404 to it, as a private fork does).
func (s *Server) SetMember(id, userID int64, level int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gitOf(id)
	if g.members == nil {
		g.members = map[int64]int{}
	}
	g.members[userID] = level
}

// access returns the access level of user on project p (under s.mu).
func (s *Server) access(p *Project, user int64) int {
	g := s.gitOf(p.ID)
	if g.members == nil {
		if user == s.User.ID {
			return Maintainer
		}
		return 0
	}
	return g.members[user]
}

// lastCommitFor is the last commit reachable from sha (first parents)
// that changed path, "" when path is not at sha.
func (s *Server) lastCommitFor(p *Project, sha, path string) string {
	g := s.gitOf(p.ID)
	content, ok := p.Commits[sha][path]
	if !ok {
		return ""
	}
	for {
		ps := g.parents[sha]
		if len(ps) == 0 {
			return sha
		}
		prev, had := p.Commits[ps[0]][path]
		if !had || prev != content {
			return sha
		}
		sha = ps[0]
	}
}

// routeCommits answers the routes of this file: ok is false for others.
func (s *Server) routeCommits(w http.ResponseWriter, r *http.Request, p *Project, rest []string, body []byte) (int, bool) {
	switch {
	case len(rest) == 2 && rest[0] == "repository" && rest[1] == "commits" && r.Method == http.MethodPost:
		return s.createCommit(w, p, body), true
	case len(rest) == 3 && rest[0] == "repository" && rest[1] == "branches" && r.Method == http.MethodGet:
		if s.access(p, s.User.ID) == 0 {
			return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Project Not Found"}), true
		}
		g := s.gitOf(p.ID)
		sha, ok := g.branches[rest[2]]
		if !ok {
			return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Branch Not Found"}), true
		}
		return writeJSON(w, http.StatusOK, map[string]any{"name": rest[2], "protected": g.protected[rest[2]], "developers_can_push": !g.protected[rest[2]],
			"commit": map[string]any{"id": sha, "short_id": sha[:min(8, len(sha))], "message": g.messages[sha], "parent_ids": nonNil(g.parents[sha])}}), true
	case len(rest) == 3 && rest[0] == "members" && rest[1] == "all" && r.Method == http.MethodGet:
		uid, err := strconv.ParseInt(rest[2], 10, 64)
		level := 0
		if err == nil {
			level = s.access(p, uid)
		}
		if level == 0 {
			return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not found"}), true
		}
		return writeJSON(w, http.StatusOK, map[string]any{"id": uid, "username": fmt.Sprintf("user%d", uid), "state": "active", "access_level": level}), true
	case len(rest) == 5 && rest[0] == "merge_requests" && rest[2] == "discussions" && rest[4] == "notes" && r.Method == http.MethodPost:
		iid, _ := strconv.Atoi(rest[1])
		mr := p.MRs[iid]
		if mr == nil {
			return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not found"}), true
		}
		text, _ := params(nil, body)["body"].(string)
		if text == "" {
			return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "body is missing"}), true
		}
		for _, d := range mr.Discussions {
			if d.ID != rest[3] {
				continue
			}
			s.nextID++
			t := "DiscussionNote"
			n := &Note{ID: s.nextID, Type: &t, Body: text, Author: s.User, Resolvable: len(d.Notes) > 0 && d.Notes[0].Resolvable}
			// A reply to a single comment makes it a thread.
			d.IndividualNote = false
			d.Notes = append(d.Notes, n)
			return writeJSON(w, http.StatusCreated, n), true
		}
		return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Discussion Not Found"}), true
	}
	return 0, false
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// commitAction is one action of POST /projects/:id/repository/commits.
type commitAction struct {
	Action       string  `json:"action"`
	FilePath     string  `json:"file_path"`
	PreviousPath string  `json:"previous_path"`
	Content      *string `json:"content"`
	Encoding     string  `json:"encoding"`
	LastCommitID string  `json:"last_commit_id"`
}

// createCommit answers the Commits API as GitLab does: 403 "You are not
// allowed to push into this branch" below Developer or on a protected
// branch nobody may push to, 404 to a user who cannot see the project,
// 400 for a branch that does not exist, a file to update or delete that
// is not there, or one whose last commit is not the one last_commit_id
// names ("The file has changed since you started editing it: <path>").
func (s *Server) createCommit(w http.ResponseWriter, p *Project, body []byte) int {
	var req struct {
		Branch        string         `json:"branch"`
		CommitMessage string         `json:"commit_message"`
		Actions       []commitAction `json:"actions"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "malformed JSON"})
	}
	level := s.access(p, s.User.ID)
	if level == 0 {
		return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Project Not Found"})
	}
	switch {
	case req.Branch == "":
		return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "branch is missing"})
	case req.CommitMessage == "":
		return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "commit_message is missing"})
	case len(req.Actions) == 0:
		return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "actions is missing"})
	}
	g := s.gitOf(p.ID)
	if level < Developer || g.protected[req.Branch] {
		return writeJSON(w, http.StatusForbidden, map[string]string{"message": "403 Forbidden - You are not allowed to push into this branch"})
	}
	head, ok := g.branches[req.Branch]
	if !ok {
		return writeJSON(w, http.StatusBadRequest, map[string]string{"message": "You can only create or edit files when you are on a branch"})
	}
	files := map[string]string{}
	for k, v := range p.Commits[head] {
		files[k] = v
	}
	for _, a := range req.Actions {
		subject := a.FilePath
		if a.Action == "move" && a.PreviousPath != "" {
			subject = a.PreviousPath
		}
		_, exists := files[subject]
		switch a.Action {
		case "create":
			if exists {
				return writeJSON(w, http.StatusBadRequest, map[string]string{"message": "A file with this name already exists"})
			}
		case "update", "delete", "move":
			if !exists {
				return writeJSON(w, http.StatusBadRequest, map[string]string{"message": "A file with this name doesn't exist"})
			}
			if a.LastCommitID != "" {
				onBranch, atGiven := s.lastCommitFor(p, head, subject), s.lastCommitFor(p, a.LastCommitID, subject)
				if atGiven != "" && onBranch != atGiven {
					return writeJSON(w, http.StatusBadRequest, map[string]string{"message": "The file has changed since you started editing it: " + subject})
				}
			}
		default:
			return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "actions[action] does not have a valid value"})
		}
		content := ""
		if a.Content != nil {
			content = *a.Content
			if a.Encoding == "base64" {
				b, err := base64.StdEncoding.DecodeString(content)
				if err != nil {
					return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "content is not valid Base64"})
				}
				content = string(b)
			}
		}
		switch a.Action {
		case "create", "update":
			files[a.FilePath] = content
		case "delete":
			delete(files, a.FilePath)
		case "move":
			moved := files[subject]
			if a.Content != nil {
				moved = content
			}
			delete(files, subject)
			files[a.FilePath] = moved
		}
	}
	h := sha1.New()
	fmt.Fprintf(h, "%s\x00%s\x00", head, req.CommitMessage)
	for _, k := range sortedKeys(files) {
		fmt.Fprintf(h, "%s\x00%s\x00", k, files[k])
	}
	sha := hex.EncodeToString(h.Sum(nil))
	p.Commits[sha] = files
	g.parents[sha] = []string{head}
	g.messages[sha] = req.CommitMessage
	g.branches[req.Branch] = sha
	for _, mr := range p.MRs {
		if mr.SourceBranch == req.Branch && mr.HeadSHA == head {
			mr.HeadSHA = sha // the merge request follows its source branch
			mr.Diffs = treeDiffs(p.Commits[mr.BaseSHA], files)
		}
	}
	title, _, _ := strings.Cut(req.CommitMessage, "\n")
	return writeJSON(w, http.StatusCreated, map[string]any{"id": sha, "short_id": sha[:8], "title": title, "message": req.CommitMessage,
		"parent_ids": []string{head}, "author_name": s.User.Username, "committer_name": s.User.Username})
}
