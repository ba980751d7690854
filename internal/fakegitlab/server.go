// Package fakegitlab is an in-process GitLab REST API (httptest) that
// implements the endpoints prodready calls and answers them the way GitLab
// does: PRIVATE-TOKEN checked (401 otherwise), offset pagination headers
// (X-Page, X-Per-Page, X-Next-Page, X-Prev-Page, X-Total, X-Total-Pages,
// Link) and keyset pagination for the tree (page_token, Link), the
// repository archive (archive.tar.gz?sha=), a 400 about line_code for a discussion whose position is outside
// the diff or has wrong line fields, 400 "Cannot transition status" for a
// commit status set to the state it has, injected 429/5xx answers, and a
// record of every call.
package fakegitlab

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/prodready/prodready/bot"
)

// Server is a fake GitLab instance. Its URL is the instance's base URL (the
// API lives under /api/v4).
type Server struct {
	*httptest.Server
	// Token is the only PRIVATE-TOKEN accepted.
	Token string
	// User is the token's user.
	User User

	mu       sync.Mutex
	projects map[int64]*Project
	calls    []Call
	faults   []*fault
	statuses []Status
	nextID   int64
	// git holds branches, commit parents, protections and members
	// (commits.go).
	git map[int64]*gitProject
}

// User is a GitLab user.
type User struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

// Project is one repository: its commits (each a whole tree) and merge
// requests.
type Project struct {
	ID   int64
	Path string
	// Commits maps a commit SHA to its files (path → content).
	Commits map[string]map[string]string
	// Modes are the tree modes other than 100644, by commit and path
	// (SetTreeMode).
	Modes map[string]map[string]string
	MRs   map[int]*MergeRequest
}

// MergeRequest is one merge request at its current push.
type MergeRequest struct {
	IID          int
	SourceBranch string
	TargetBranch string
	BaseSHA      string
	StartSHA     string
	HeadSHA      string
	// PendingRefs is how many more GETs of the merge request answer
	// diff_refs null, as GitLab does right after a push.
	PendingRefs int
	// Diffs hold every file's whole diff; the diffs API leaves out those
	// marked TooLarge or Collapsed, raw_diffs has them all.
	Diffs []Diff
	// NoRawDiffs makes raw_diffs answer 404, as GitLab before 17.x.
	NoRawDiffs  bool
	Discussions []*Discussion
}

// Diff is one entry of merge_requests/:iid/diffs.
type Diff struct {
	OldPath     string `json:"old_path"`
	NewPath     string `json:"new_path"`
	AMode       string `json:"a_mode"`
	BMode       string `json:"b_mode"`
	Diff        string `json:"diff"`
	NewFile     bool   `json:"new_file"`
	RenamedFile bool   `json:"renamed_file"`
	DeletedFile bool   `json:"deleted_file"`
	TooLarge    bool   `json:"too_large"`
	Collapsed   bool   `json:"collapsed"`
}

// Discussion is a thread on a merge request.
type Discussion struct {
	ID             string  `json:"id"`
	IndividualNote bool    `json:"individual_note"`
	Notes          []*Note `json:"notes"`
}

// Note is one note of a discussion.
type Note struct {
	ID         int64     `json:"id"`
	Type       *string   `json:"type"`
	Body       string    `json:"body"`
	Author     User      `json:"author"`
	System     bool      `json:"system"`
	Position   *Position `json:"position,omitempty"`
	Resolvable bool      `json:"resolvable"`
	Resolved   bool      `json:"resolved"`
}

// Position is a diff note's anchor, as the API takes and returns it.
type Position struct {
	BaseSHA      string     `json:"base_sha"`
	StartSHA     string     `json:"start_sha"`
	HeadSHA      string     `json:"head_sha"`
	PositionType string     `json:"position_type"`
	OldPath      string     `json:"old_path"`
	NewPath      string     `json:"new_path"`
	OldLine      *int       `json:"old_line"`
	NewLine      *int       `json:"new_line"`
	LineRange    *LineRange `json:"line_range,omitempty"`
}

// LineRange is a multi-line note's range.
type LineRange struct {
	Start *LinePos `json:"start"`
	End   *LinePos `json:"end"`
}

// LinePos is one end of a line range.
type LinePos struct {
	LineCode string `json:"line_code"`
	Type     string `json:"type"`
	OldLine  *int   `json:"old_line"`
	NewLine  *int   `json:"new_line"`
}

// Status is one commit status set through the API.
type Status struct {
	SHA, Name, State, Description, TargetURL string
}

// Call is one request the server received.
type Call struct {
	Method string
	// Path is the unescaped path below /api/v4, e.g.
	// "/projects/7/merge_requests/1/discussions".
	Path  string
	Query url.Values
	Body  string
	// Status is the HTTP status answered.
	Status int
}

type fault struct {
	method, pathPrefix string
	status, left       int
	// after: the request is carried out, then answered status.
	after bool
}

// New starts a fake GitLab accepting token. Close it when done.
func New(token string) *Server {
	s := &Server{Token: token, User: User{ID: 42, Username: "prodready-bot"}, projects: map[int64]*Project{}, nextID: 1000}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// AddProject registers an empty project.
func (s *Server) AddProject(id int64, path string) *Project {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &Project{ID: id, Path: path, Commits: map[string]map[string]string{}, MRs: map[int]*MergeRequest{}}
	s.projects[id] = p
	return p
}

// SetTreeMode gives path in commit sha of project id the tree mode mode
// ("120000": a symbolic link, whose content is the path it links to), as
// the repository tree API lists it.
func (s *Server) SetTreeMode(id int64, sha, path, mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[id]
	if p.Modes == nil {
		p.Modes = map[string]map[string]string{}
	}
	if p.Modes[sha] == nil {
		p.Modes[sha] = map[string]string{}
	}
	p.Modes[sha][path] = mode
}

// Commit stores a commit of project id with files and returns its SHA
// (derived from the content, like git).
func (s *Server) Commit(id int64, files map[string]string) string {
	h := sha1.New()
	for _, k := range sortedKeys(files) {
		fmt.Fprintf(h, "%s\x00%s\x00", k, files[k])
	}
	sha := hex.EncodeToString(h.Sum(nil))
	s.CommitAs(id, sha, files)
	return sha
}

// CommitAs stores a commit of project id under a given SHA (one a recorded
// webhook payload names).
func (s *Server) CommitAs(id int64, sha string, files map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tree := map[string]string{}
	for k, v := range files {
		tree[k] = v
	}
	s.projects[id].Commits[sha] = tree
}

// Push makes commit head the merge request iid's head against base (created
// when absent), computing its diffs from the two trees as GitLab does.
// pendingRefs GETs of the merge request then answer diff_refs null.
func (s *Server) Push(id int64, iid int, base, head string, pendingRefs int) *MergeRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[id]
	mr := p.MRs[iid]
	if mr == nil {
		mr = &MergeRequest{IID: iid, SourceBranch: "feature", TargetBranch: "main"}
		p.MRs[iid] = mr
	}
	oldHead := mr.HeadSHA
	mr.BaseSHA, mr.StartSHA, mr.HeadSHA, mr.PendingRefs = base, base, head, pendingRefs
	mr.Diffs = treeDiffs(p.Commits[base], p.Commits[head])
	if oldHead != "" && oldHead != head {
		tracePositions(p, mr, oldHead)
	}
	return mr
}

// tracePositions moves the diff notes of mr to the new push, as GitLab
// does after a push (Discussions::UpdateDiffPositionService): a note whose
// lines are unchanged between the old head and the new one, in the same
// file, gets a position on the new diff_refs at the lines they are now on;
// a note whose lines changed or went away is outdated and keeps its
// position (on the old diff_refs).
func tracePositions(p *Project, mr *MergeRequest, oldHead string) {
	before, after := p.Commits[oldHead], p.Commits[mr.HeadSHA]
	for _, d := range mr.Discussions {
		if len(d.Notes) == 0 || d.Notes[0].Position == nil {
			continue
		}
		pos := d.Notes[0].Position
		if pos.HeadSHA != oldHead || pos.NewLine == nil {
			continue // outdated already
		}
		oldSrc, ok1 := before[pos.NewPath]
		newSrc, ok2 := after[pos.NewPath]
		if !ok1 || !ok2 {
			continue
		}
		move := func(n *int) (*int, bool) {
			if n == nil {
				return nil, true
			}
			m, ok := mapLine(oldSrc, newSrc, *n)
			return &m, ok
		}
		nl, ok := move(pos.NewLine)
		if !ok {
			continue
		}
		np := *pos
		np.BaseSHA, np.StartSHA, np.HeadSHA, np.NewLine = mr.BaseSHA, mr.StartSHA, mr.HeadSHA, nl
		np.OldLine = nil // the fake does not trace the old side
		if lr := pos.LineRange; lr != nil && lr.Start != nil && lr.End != nil {
			s, ok1 := move(lr.Start.NewLine)
			e, ok2 := move(lr.End.NewLine)
			if !ok1 || !ok2 {
				continue
			}
			np.LineRange = &LineRange{Start: &LinePos{Type: lr.Start.Type, NewLine: s, LineCode: LineCode(np.NewPath, 0, derefInt(s))},
				End: &LinePos{Type: lr.End.Type, NewLine: e, LineCode: LineCode(np.NewPath, 0, derefInt(e))}}
		}
		for _, n := range d.Notes {
			if n.Position != nil {
				n.Position = &np
			}
		}
	}
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func treeDiffs(old, new map[string]string) []Diff {
	var out []Diff
	paths := map[string]bool{}
	for k := range old {
		paths[k] = true
	}
	for k := range new {
		paths[k] = true
	}
	for _, p := range sortedKeys(paths) {
		o, inOld := old[p]
		n, inNew := new[p]
		if inOld && inNew && o == n {
			continue
		}
		out = append(out, Diff{OldPath: p, NewPath: p, AMode: "100644", BMode: "100644",
			Diff: UnifiedDiff(o, n), NewFile: !inOld, DeletedFile: !inNew})
	}
	return out
}

// MR returns a merge request, for tests to adjust (under no lock: only
// between requests).
func (s *Server) MR(id int64, iid int) *MergeRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.projects[id].MRs[iid]
}

// Fail makes the next n requests whose method is method and whose path
// (below /api/v4) starts with pathPrefix answer status.
func (s *Server) Fail(method, pathPrefix string, status, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{method: method, pathPrefix: pathPrefix, status: status, left: n})
}

// FailAfter makes the next n matching requests take effect and then
// answer status anyway, like a GitLab whose proxy times out after the
// database committed.
func (s *Server) FailAfter(method, pathPrefix string, status, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{method: method, pathPrefix: pathPrefix, status: status, left: n, after: true})
}

// Calls returns every request received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallsTo returns the calls with method whose path contains part.
func (s *Server) CallsTo(method, part string) []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Method == method && strings.Contains(c.Path, part) {
			out = append(out, c)
		}
	}
	return out
}

// Statuses returns every commit status set, in order.
func (s *Server) Statuses() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Status(nil), s.statuses...)
}

// Discussions returns the discussions of a merge request (copies).
func (s *Server) Discussions(id int64, iid int) []Discussion {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Discussion
	for _, d := range s.projects[id].MRs[iid].Discussions {
		c := *d
		c.Notes = nil
		for _, n := range d.Notes {
			nc := *n
			c.Notes = append(c.Notes, &nc)
		}
		out = append(out, c)
	}
	return out
}

// SetResolved resolves or reopens a discussion, as a person would.
func (s *Server) SetResolved(id int64, iid int, discussion string, resolved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.projects[id].MRs[iid].Discussions {
		if d.ID == discussion {
			for _, n := range d.Notes {
				n.Resolved = resolved
			}
		}
	}
}

// AddNote adds a note by author to a merge request, as a person would.
func (s *Server) AddNote(id int64, iid int, author User, body string, resolvable bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mr := s.projects[id].MRs[iid]
	s.nextID++
	mr.Discussions = append(mr.Discussions, &Discussion{ID: discussionID(s.nextID), IndividualNote: !resolvable,
		Notes: []*Note{{ID: s.nextID, Body: body, Author: author, Resolvable: resolvable}}})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	rawPath := strings.TrimPrefix(r.URL.EscapedPath(), "/api/v4")
	path, _ := url.PathUnescape(rawPath)
	status := s.handle(w, r, rawPath, body)
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: r.Method, Path: path, Query: r.URL.Query(), Body: string(body), Status: status})
	s.mu.Unlock()
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request, rawPath string, body []byte) int {
	if r.Header.Get("PRIVATE-TOKEN") != s.Token || s.Token == "" {
		return writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "401 Unauthorized"})
	}
	path, _ := url.PathUnescape(rawPath)
	s.mu.Lock()
	for _, f := range s.faults {
		if f.left > 0 && f.method == r.Method && strings.HasPrefix(path, f.pathPrefix) {
			f.left--
			s.mu.Unlock()
			if f.after {
				s.route(httptest.NewRecorder(), r, rawPath, body)
			}
			if f.status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
			}
			return writeJSON(w, f.status, map[string]string{"message": http.StatusText(f.status)})
		}
	}
	s.mu.Unlock()
	return s.route(w, r, rawPath, body)
}

// route answers an authenticated request.
func (s *Server) route(w http.ResponseWriter, r *http.Request, rawPath string, body []byte) int {

	seg := strings.Split(strings.Trim(rawPath, "/"), "/")
	for i := range seg {
		seg[i], _ = url.PathUnescape(seg[i])
	}
	if len(seg) == 1 && seg[0] == "user" && r.Method == http.MethodGet {
		return writeJSON(w, http.StatusOK, s.User)
	}
	if len(seg) < 3 || seg[0] != "projects" {
		return notFound(w)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.project(seg[1])
	if p == nil {
		return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Project Not Found"})
	}
	rest := seg[2:]
	q := r.URL.Query()
	if status, ok := s.routeCommits(w, r, p, rest, body); ok {
		return status // commits, branches, members, thread replies (commits.go)
	}
	switch {
	case rest[0] == "statuses" && len(rest) == 2 && r.Method == http.MethodPost:
		return s.setStatus(w, p, rest[1], params(q, body))
	case rest[0] == "repository" && len(rest) == 4 && rest[1] == "commits" && rest[3] == "statuses" && r.Method == http.MethodGet:
		return s.commitStatuses(w, rest[2], q)
	case rest[0] == "repository":
		return s.repository(w, r, p, rest[1:], q)
	case rest[0] == "merge_requests" && len(rest) >= 2:
		iid, _ := strconv.Atoi(rest[1])
		mr := p.MRs[iid]
		if mr == nil {
			return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not found"})
		}
		return s.mergeRequest(w, r, p, mr, rest[2:], q, body)
	}
	return notFound(w)
}

func (s *Server) project(id string) *Project {
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		return s.projects[n]
	}
	for _, p := range s.projects {
		if p.Path == id {
			return p
		}
	}
	return nil
}

func (s *Server) repository(w http.ResponseWriter, r *http.Request, p *Project, rest []string, q url.Values) int {
	if r.Method != http.MethodGet {
		return notFound(w)
	}
	switch {
	case len(rest) == 3 && rest[0] == "files" && rest[2] == "raw":
		tree := p.Commits[q.Get("ref")]
		if q.Get("ref") == "" {
			return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "ref is missing"})
		}
		data, ok := tree[rest[1]]
		if !ok {
			return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 File Not Found"})
		}
		return writeRaw(w, data)
	case len(rest) == 1 && rest[0] == "tree":
		tree, ok := p.Commits[q.Get("ref")]
		if !ok {
			return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Tree Not Found"})
		}
		type node struct {
			ID   string `json:"id"`
			Name string `json:"name"`
			Type string `json:"type"`
			Path string `json:"path"`
			Mode string `json:"mode"`
		}
		var nodes []node
		dirs := map[string]bool{}
		for _, f := range sortedKeys(tree) {
			parts := strings.Split(f, "/")
			for i := 1; i < len(parts); i++ {
				d := strings.Join(parts[:i], "/")
				if !dirs[d] {
					dirs[d] = true
					nodes = append(nodes, node{ID: blobSHA(d), Name: parts[i-1], Type: "tree", Path: d, Mode: "040000"})
				}
			}
			if q.Get("recursive") != "true" && len(parts) > 1 {
				continue
			}
			mode := "100644"
			if m := p.Modes[q.Get("ref")][f]; m != "" {
				mode = m
			}
			nodes = append(nodes, node{ID: blobSHA(tree[f]), Name: parts[len(parts)-1], Type: "blob", Path: f, Mode: mode})
		}
		if q.Get("recursive") != "true" {
			var top []node
			for _, n := range nodes {
				if !strings.Contains(n.Path, "/") {
					top = append(top, n)
				}
			}
			nodes = top
		}
		if q.Get("pagination") == "keyset" {
			return writeKeyset(w, r, nodes, func(n node) string { return n.Path })
		}
		return writePage(w, r, nodes)
	case len(rest) == 1 && (rest[0] == "archive" || rest[0] == "archive.tar.gz"):
		return writeArchive(w, p, q.Get("sha"))
	case len(rest) == 3 && rest[0] == "blobs" && rest[2] == "raw":
		for _, tree := range p.Commits {
			for _, data := range tree {
				if blobSHA(data) == rest[1] {
					return writeRaw(w, data)
				}
			}
		}
		return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Blob Not Found"})
	}
	return notFound(w)
}

// BlobSHA is git's blob id of content.
func BlobSHA(content string) string { return blobSHA(content) }

func blobSHA(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00%s", len(content), content)
	return hex.EncodeToString(h.Sum(nil))
}

// transitions names the state machine event GitLab reports for each
// target state ("Cannot transition status via :run from :running").
var transitions = map[string]string{
	"pending": "enqueue", "running": "run", "success": "succeed", "failed": "drop", "canceled": "cancel",
}

func (s *Server) setStatus(w http.ResponseWriter, p *Project, sha string, in map[string]any) int {
	if _, ok := p.Commits[sha]; !ok {
		return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Commit Not Found"})
	}
	state, _ := in["state"].(string)
	if _, ok := transitions[state]; !ok {
		return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "state does not have a valid value"})
	}
	name, _ := in["name"].(string)
	if name == "" {
		name = "default"
	}
	desc, _ := in["description"].(string)
	target, _ := in["target_url"].(string)
	for i := len(s.statuses) - 1; i >= 0; i-- {
		st := s.statuses[i]
		if st.SHA == sha && st.Name == name {
			if st.State == state {
				return writeJSON(w, http.StatusBadRequest, map[string]string{
					"message": fmt.Sprintf("Cannot transition status via :%s from :%s", transitions[state], st.State)})
			}
			break
		}
	}
	s.statuses = append(s.statuses, Status{SHA: sha, Name: name, State: state, Description: desc, TargetURL: target})
	s.nextID++
	return writeJSON(w, http.StatusCreated, map[string]any{"id": s.nextID, "sha": sha, "status": state, "name": name, "description": desc})
}

// commitStatuses lists a commit's statuses, newest first: the latest of
// each name unless all=true; name filters by name.
func (s *Server) commitStatuses(w http.ResponseWriter, sha string, q url.Values) int {
	out := []map[string]any{}
	seen := map[string]bool{}
	for i := len(s.statuses) - 1; i >= 0; i-- {
		st := s.statuses[i]
		if st.SHA != sha || (q.Get("name") != "" && st.Name != q.Get("name")) || (seen[st.Name] && q.Get("all") != "true") {
			continue
		}
		seen[st.Name] = true
		out = append(out, map[string]any{"sha": st.SHA, "name": st.Name, "status": st.State, "description": st.Description, "target_url": st.TargetURL})
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) mergeRequest(w http.ResponseWriter, r *http.Request, p *Project, mr *MergeRequest, rest []string, q url.Values, body []byte) int {
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		out := map[string]any{
			"id": 10000 + mr.IID, "iid": mr.IID, "project_id": p.ID, "state": "opened",
			"source_branch": mr.SourceBranch, "target_branch": mr.TargetBranch, "sha": mr.HeadSHA,
			"web_url":   fmt.Sprintf("%s/%s/-/merge_requests/%d", s.URL, p.Path, mr.IID),
			"diff_refs": map[string]string{"base_sha": mr.BaseSHA, "start_sha": mr.StartSHA, "head_sha": mr.HeadSHA},
		}
		if mr.PendingRefs > 0 {
			mr.PendingRefs--
			out["diff_refs"] = nil
		}
		return writeJSON(w, http.StatusOK, out)
	case len(rest) == 1 && rest[0] == "diffs" && r.Method == http.MethodGet:
		// GitLab leaves out the diff of a file over its limits.
		listed := make([]Diff, len(mr.Diffs))
		for i, d := range mr.Diffs {
			if d.TooLarge || d.Collapsed {
				d.Diff = ""
			}
			listed[i] = d
		}
		return writePage(w, r, listed)
	case len(rest) == 1 && rest[0] == "raw_diffs" && r.Method == http.MethodGet:
		if mr.NoRawDiffs {
			return notFound(w)
		}
		var b strings.Builder
		for _, d := range mr.Diffs {
			from, to := "a/"+d.OldPath, "b/"+d.NewPath
			if d.NewFile {
				from = "/dev/null"
			}
			if d.DeletedFile {
				to = "/dev/null"
			}
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 0000000..1111111 100644\n--- %s\n+++ %s\n%s", d.OldPath, d.NewPath, from, to, d.Diff)
		}
		return writeRaw(w, b.String())
	case len(rest) == 1 && rest[0] == "discussions" && r.Method == http.MethodGet:
		return writePage(w, r, mr.Discussions)
	case len(rest) == 1 && rest[0] == "discussions" && r.Method == http.MethodPost:
		return s.createDiscussion(w, mr, body)
	case len(rest) == 2 && rest[0] == "discussions" && r.Method == http.MethodPut:
		in := params(q, body)
		for _, d := range mr.Discussions {
			if d.ID != rest[1] {
				continue
			}
			if len(d.Notes) == 0 || !d.Notes[0].Resolvable {
				return writeJSON(w, http.StatusBadRequest, map[string]string{"message": "400 Bad request - discussion is not resolvable"})
			}
			resolved, ok := boolParam(in["resolved"])
			if !ok {
				return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "resolved is missing"})
			}
			for _, n := range d.Notes {
				n.Resolved = resolved
			}
			return writeJSON(w, http.StatusOK, d)
		}
		return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not found"})
	case len(rest) == 1 && rest[0] == "notes" && r.Method == http.MethodPost:
		in := params(q, body)
		text, _ := in["body"].(string)
		if text == "" {
			return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "body is missing"})
		}
		s.nextID++
		n := &Note{ID: s.nextID, Body: text, Author: s.User}
		mr.Discussions = append(mr.Discussions, &Discussion{ID: discussionID(s.nextID), IndividualNote: true, Notes: []*Note{n}})
		return writeJSON(w, http.StatusCreated, n)
	case len(rest) == 2 && rest[0] == "notes" && r.Method == http.MethodPut:
		id, _ := strconv.ParseInt(rest[1], 10, 64)
		in := params(q, body)
		for _, d := range mr.Discussions {
			for _, n := range d.Notes {
				if n.ID != id {
					continue
				}
				if n.Author.ID != s.User.ID {
					return writeJSON(w, http.StatusForbidden, map[string]string{"message": "403 Forbidden"})
				}
				text, _ := in["body"].(string)
				if text == "" {
					return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "body is missing"})
				}
				n.Body = text
				return writeJSON(w, http.StatusOK, n)
			}
		}
		return writeJSON(w, http.StatusNotFound, map[string]string{"message": "404 Note Not Found"})
	}
	return notFound(w)
}

// lineCodeError is GitLab's answer to a position it cannot find in the diff.
var lineCodeError = map[string]string{"message": `400 Bad request - Note {:line_code=>["can't be blank", "must be a valid line code"]}`}

func (s *Server) createDiscussion(w http.ResponseWriter, mr *MergeRequest, body []byte) int {
	var in struct {
		Body     string    `json:"body"`
		Position *Position `json:"position"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "malformed JSON"})
	}
	if in.Body == "" {
		return writeJSON(w, http.StatusBadRequest, map[string]string{"error": "body is missing"})
	}
	n := &Note{Body: in.Body, Author: s.User, Resolvable: true}
	if pos := in.Position; pos != nil {
		if msg := validatePosition(mr, pos); msg != nil {
			return writeJSON(w, http.StatusBadRequest, msg)
		}
		t := "DiffNote"
		n.Type, n.Position = &t, pos
	} else {
		t := "DiscussionNote"
		n.Type = &t
	}
	s.nextID++
	n.ID = s.nextID
	d := &Discussion{ID: discussionID(n.ID), Notes: []*Note{n}}
	mr.Discussions = append(mr.Discussions, d)
	return writeJSON(w, http.StatusCreated, d)
}

// validatePosition checks a text position the way GitLab does: the SHAs
// must be the merge request's diff_refs, the path a file of its diff, and
// the lines a line of that diff (old_line only on context lines); a
// line_range's line codes must be sha1(new_path)_old_new of its lines.
func validatePosition(mr *MergeRequest, p *Position) map[string]string {
	if p.PositionType != "text" {
		return map[string]string{"error": "position[position_type] does not have a valid value"}
	}
	if p.BaseSHA != mr.BaseSHA || p.StartSHA != mr.StartSHA || p.HeadSHA != mr.HeadSHA {
		return lineCodeError
	}
	var diff *Diff
	for i := range mr.Diffs {
		if mr.Diffs[i].NewPath == p.NewPath && mr.Diffs[i].OldPath == p.OldPath {
			diff = &mr.Diffs[i]
		}
	}
	if diff == nil || p.NewLine == nil {
		return lineCodeError
	}
	lines := diffLines(diff.Diff)
	find := func(oldLine, newLine *int) (diffLine, bool) {
		for _, l := range lines {
			if newLine == nil || l.newLine != *newLine {
				continue
			}
			if l.added && oldLine == nil {
				return l, true
			}
			if !l.added && oldLine != nil && *oldLine == l.oldPos {
				return l, true
			}
		}
		return diffLine{}, false
	}
	if _, ok := find(p.OldLine, p.NewLine); !ok {
		return lineCodeError
	}
	if lr := p.LineRange; lr != nil {
		if lr.Start == nil || lr.End == nil {
			return lineCodeError
		}
		var got [2]diffLine
		for i, e := range []*LinePos{lr.Start, lr.End} {
			l, ok := find(e.OldLine, e.NewLine)
			if !ok || e.LineCode != LineCode(p.NewPath, l.oldPos, l.newLine) {
				return lineCodeError
			}
			if l.added && e.Type != "new" {
				return lineCodeError
			}
			got[i] = l
		}
		if got[1].newLine < got[0].newLine {
			return lineCodeError
		}
	}
	return nil
}

// LineCode is GitLab's line code: sha1(path)_oldpos_newpos.
func LineCode(path string, oldPos, newLine int) string {
	sum := sha1.Sum([]byte(path))
	return fmt.Sprintf("%s_%d_%d", hex.EncodeToString(sum[:]), oldPos, newLine)
}

type diffLine struct {
	oldPos, newLine int
	added           bool
}

// diffLines numbers the new-side lines of a diff as Gitlab::Diff::Parser:
// an added line carries the old-side counter, the next old line. The diff
// is read with bot.ParsePatch, the one diff model; an unreadable diff has
// no lines.
func diffLines(patch string) []diffLine {
	d, err := bot.ParsePatch(patch)
	if err != nil {
		return nil
	}
	var out []diffLine
	for _, h := range d.Hunks {
		oldPos := h.OldStart
		for _, l := range h.Lines {
			switch l.Type {
			case bot.Added:
				out = append(out, diffLine{oldPos, l.New, true})
			case bot.Context:
				out = append(out, diffLine{l.Old, l.New, false})
				oldPos = l.Old + 1
			case bot.Deleted:
				oldPos = l.Old + 1
			}
		}
	}
	return out
}

func discussionID(n int64) string {
	sum := sha1.Sum([]byte(strconv.FormatInt(n, 10)))
	return hex.EncodeToString(sum[:])
}

// params merges query parameters and a JSON or form body.
func params(q url.Values, body []byte) map[string]any {
	out := map[string]any{}
	for k, v := range q {
		out[k] = v[0]
	}
	if len(body) > 0 {
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			for k, v := range m {
				out[k] = v
			}
		} else if f, err := url.ParseQuery(string(body)); err == nil {
			for k, v := range f {
				out[k] = v[0]
			}
		}
	}
	return out
}

func boolParam(v any) (bool, bool) {
	switch b := v.(type) {
	case bool:
		return b, true
	case string:
		x, err := strconv.ParseBool(b)
		return x, err == nil
	}
	return false, false
}

// writePage answers one page of items with GitLab's pagination headers.
func writePage[T any](w http.ResponseWriter, r *http.Request, items []T) int {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 20
	}
	per = min(per, 100)
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page <= 0 {
		page = 1
	}
	total := len(items)
	pages := max(1, (total+per-1)/per)
	lo, hi := min(total, (page-1)*per), min(total, page*per)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	link := func(p int, rel string) string {
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		qq := u.Query()
		qq.Set("page", strconv.Itoa(p))
		qq.Set("per_page", strconv.Itoa(per))
		u.RawQuery = qq.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	links := []string{link(1, "first"), link(pages, "last")}
	if page < pages {
		h.Set("X-Next-Page", strconv.Itoa(page+1))
		links = append(links, link(page+1, "next"))
	}
	if page > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(page-1))
		links = append(links, link(page-1, "prev"))
	}
	h.Set("Link", strings.Join(links, ", "))
	out := items[lo:hi]
	if out == nil {
		out = []T{}
	}
	return writeJSON(w, http.StatusOK, out)
}

// writeKeyset answers one page of keyset pagination, as GitLab does for
// trees: items after page_token (the key of the previous page's last
// item), and a Link rel="next" carrying the next token while more remain;
// no offset headers.
func writeKeyset[T any](w http.ResponseWriter, r *http.Request, items []T, key func(T) string) int {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 20
	}
	per = min(per, 100)
	start := 0
	if tok := q.Get("page_token"); tok != "" {
		start = len(items)
		for i, it := range items {
			if key(it) == tok {
				start = i + 1
				break
			}
		}
	}
	end := min(len(items), start+per)
	out := items[start:end]
	if end < len(items) && end > start {
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		qq := u.Query()
		qq.Del("page")
		qq.Set("page_token", key(items[end-1]))
		qq.Set("per_page", strconv.Itoa(per))
		u.RawQuery = qq.Encode()
		w.Header().Set("Link", fmt.Sprintf("<%s>; rel=\"next\"", u.String()))
	}
	if out == nil {
		out = []T{}
	}
	return writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
	return status
}

func writeRaw(w http.ResponseWriter, data string) int {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, data)
	return http.StatusOK
}

func notFound(w http.ResponseWriter) int {
	return writeJSON(w, http.StatusNotFound, map[string]string{"error": "404 Not Found"})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
