package fakegithub

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Routes of the Git Data API writes and the refs, and of the installation.
const (
	RouteCreateBlob   = "POST /repos/{owner}/{repo}/git/blobs"
	RouteCreateTree   = "POST /repos/{owner}/{repo}/git/trees"
	RouteCreateCommit = "POST /repos/{owner}/{repo}/git/commits"
	RouteGetCommit    = "GET /repos/{owner}/{repo}/git/commits/{sha}"
	RouteGetRef       = "GET /repos/{owner}/{repo}/git/ref/{ref...}"
	RouteUpdateRef    = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"
	RouteGetCheckRun  = "GET /repos/{owner}/{repo}/check-runs/{id}"
	RouteInstallation = "GET /app/installations/{id}"
	RouteGetPR        = "GET /repos/{owner}/{repo}/pulls/{n}"
)

// DefaultPermissions are an installation's permissions until
// SetPermissions: those the README asks the App for, Contents read only.
var DefaultPermissions = map[string]string{"checks": "write", "contents": "read", "metadata": "read", "pull_requests": "write"}

// notAccessible is GitHub's answer to an installation token used beyond
// its permissions or repositories.
const notAccessible = "Resource not accessible by integration"

// gitState is the fake's Git database beyond trees of files: branches,
// commits' parents and messages, trees by SHA, protected branches, and
// the installations' permissions and repositories.
type gitState struct {
	refs      map[string]map[string]string      // repo -> branch -> commit
	meta      map[string]map[string]*CommitInfo // repo -> commit -> what it says
	trees     map[string]map[string]string      // tree SHA -> path -> content
	modes     map[string]map[string]string      // tree SHA -> path -> mode other than 100644
	protected map[string]map[string]string      // repo -> branch -> the 422 message
	perms     map[int64]map[string]string       // installation -> permissions
	reach     map[int64]map[string]bool         // installation -> repos (nil: all)
	branches  map[string]*PRBranches            // "owner/name#n" -> branches
}

// PRBranches are a pull request's branches and head repository.
type PRBranches struct {
	BaseRef, HeadRef string
	// HeadRepo is "owner/name" of the head branch's repository: another
	// than the pull request's for a fork.
	HeadRepo string
	// State is "open" (the default) or "closed".
	State string
}

// CommitInfo is what a commit says beside its files.
type CommitInfo struct {
	SHA, Tree, Message string
	Parents            []string
	// Author is the login the commit is attributed to: the App's bot for
	// a commit made with an installation token.
	Author string
}

func (g *gitState) init() {
	if g.refs == nil {
		g.refs, g.meta, g.trees = map[string]map[string]string{}, map[string]map[string]*CommitInfo{}, map[string]map[string]string{}
		g.protected, g.perms, g.reach = map[string]map[string]string{}, map[int64]map[string]string{}, map[int64]map[string]bool{}
		g.branches, g.modes = map[string]*PRBranches{}, map[string]map[string]string{}
	}
}

func sub[K comparable, V any](m map[string]map[K]V, k string) map[K]V {
	if m[k] == nil {
		m[k] = map[K]V{}
	}
	return m[k]
}

// registerGitData adds the routes of this file.
func (s *Server) registerGitData(mux *http.ServeMux) {
	mux.HandleFunc(RouteCreateBlob, s.auth(s.createBlob))
	mux.HandleFunc(RouteCreateTree, s.auth(s.createTree))
	mux.HandleFunc(RouteCreateCommit, s.auth(s.createCommit))
	mux.HandleFunc(RouteGetCommit, s.auth(s.getCommit))
	mux.HandleFunc(RouteGetRef, s.auth(s.getRef))
	mux.HandleFunc(RouteUpdateRef, s.auth(s.updateRef))
	mux.HandleFunc(RouteGetCheckRun, s.auth(s.getRun))
	mux.HandleFunc(RouteInstallation, s.installation)
}

// SetPRBranches names pull request number's branches (SetPR names its
// commits). A pull request whose head repository is its own follows its
// head branch: moving the branch moves the pull request's head.
func (s *Server) SetPRBranches(owner, name string, number int, b PRBranches) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	if b.State == "" {
		b.State = "open"
	}
	s.git.branches[fmt.Sprintf("%s/%s#%d", owner, name, number)] = &b
}

// SetBranch points branch at commit sha (added with AddCommit).
func (s *Server) SetBranch(owner, name, branch, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	sub(s.git.refs, owner+"/"+name)[branch] = sha
	s.followBranch(owner+"/"+name, branch, sha)
}

// Branch returns the commit branch points at ("" when there is none).
func (s *Server) Branch(owner, name, branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	return s.git.refs[owner+"/"+name][branch]
}

// SetParents records the parents of commit sha, with its message.
func (s *Server) SetParents(owner, name, sha, message string, parents ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	sub(s.git.meta, owner+"/"+name)[sha] = &CommitInfo{SHA: sha, Message: message, Parents: parents}
}

// followBranch moves the head of the pull requests of repo whose head is
// branch of repo itself to sha (under s.mu).
func (s *Server) followBranch(repo, branch, sha string) {
	owner, name, _ := strings.Cut(repo, "/")
	rp := s.repo(owner, name)
	for n, p := range rp.prs {
		if b := s.git.branches[fmt.Sprintf("%s#%d", repo, n)]; b != nil && b.HeadRef == branch && strings.EqualFold(b.HeadRepo, repo) {
			p.head = sha
		}
	}
}

// Push adds a commit of files on branch, its parent the branch's commit,
// and moves the branch to it, as a person's git push would.
func (s *Server) Push(owner, name, branch, sha string, files map[string]string) {
	parent := s.Branch(owner, name, branch)
	s.AddCommit(owner, name, sha, files)
	var parents []string
	if parent != "" {
		parents = []string{parent}
	}
	s.SetParents(owner, name, sha, "push", parents...)
	s.SetBranch(owner, name, branch, sha)
}

// Commit returns what commit sha says and its files (false when unknown).
func (s *Server) Commit(owner, name, sha string) (CommitInfo, map[string]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	rp := s.repo(owner, name)
	files, ok := rp.commits[sha]
	if !ok {
		return CommitInfo{}, nil, false
	}
	info := s.commitInfo(owner+"/"+name, sha, files)
	cp := map[string]string{}
	for k, v := range files {
		cp[k] = v
	}
	return *info, cp, true
}

// ProtectBranch makes updates of branch's ref answer 422 as GitHub does
// for a branch whose protection or rules refuse the push.
func (s *Server) ProtectBranch(owner, name, branch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	sub(s.git.protected, owner+"/"+name)[branch] = "Changes must be made through a pull request."
}

// SetPermissions sets installation id's permissions (DefaultPermissions
// until then), as its tokens and GET /app/installations/{id} report them:
// without contents "write", the Git Data writes answer 403.
func (s *Server) SetPermissions(id int64, perms map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	cp := map[string]string{}
	for k, v := range perms {
		cp[k] = v
	}
	s.git.perms[id] = cp
}

// SetRepositories limits installation id to repos ("owner/name"): a
// write to another (a fork's head repository) answers 403, as GitHub
// answers an installation token outside its installation.
func (s *Server) SetRepositories(id int64, repos ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	m := map[string]bool{}
	for _, r := range repos {
		m[strings.ToLower(r)] = true
	}
	s.git.reach[id] = m
}

// permissions returns installation id's permissions (under s.mu).
func (s *Server) permissions(id int64) map[string]string {
	s.git.init()
	if p, ok := s.git.perms[id]; ok {
		return p
	}
	return DefaultPermissions
}

// installationOf returns the installation of the request's token (under
// s.mu; auth has checked it).
func (s *Server) installationOf(r *http.Request) int64 {
	a := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(a, "token ")
	if !ok {
		tok, _ = strings.CutPrefix(a, "Bearer ")
	}
	return s.tokens[tok]
}

// mayWrite answers 403 and returns false when the request's installation
// may not write the repository's contents (under s.mu).
func (s *Server) mayWrite(w http.ResponseWriter, r *http.Request) bool {
	id := s.installationOf(r)
	repo := strings.ToLower(r.PathValue("owner") + "/" + r.PathValue("repo"))
	reach, limited := s.git.reach[id]
	if s.permissions(id)["contents"] != "write" || (limited && !reach[repo]) {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": notAccessible, "documentation_url": "https://docs.github.com/rest/git"})
		return false
	}
	return true
}

// treeSHA names a tree of files by its content and its files' modes
// (those other than 100644).
func treeSHA(files, modes map[string]string) string {
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha1.New()
	h.Write([]byte("tree\x00"))
	for _, k := range keys {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", k, blobSHA(files[k]), modes[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// commitInfo returns commit sha's info, made up for a commit added with
// AddCommit alone (no parents, message "commit"); its tree is kept by SHA
// (under s.mu).
func (s *Server) commitInfo(repo, sha string, files map[string]string) *CommitInfo {
	m := sub(s.git.meta, repo)
	info := m[sha]
	if info == nil {
		info = &CommitInfo{SHA: sha, Message: "commit"}
		m[sha] = info
	}
	owner, name, _ := strings.Cut(repo, "/")
	modes := s.repo(owner, name).modes[sha]
	if info.Tree == "" {
		info.Tree = treeSHA(files, modes)
	}
	s.git.trees[info.Tree] = files
	s.git.modes[info.Tree] = modes
	return info
}

func commitJSON(c *CommitInfo) map[string]any {
	parents := []map[string]any{}
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p})
	}
	author := map[string]any{"name": c.Author, "email": "", "date": time.Now().UTC().Format(time.RFC3339)}
	return map[string]any{"sha": c.SHA, "message": c.Message, "tree": map[string]any{"sha": c.Tree}, "parents": parents, "author": author, "committer": author}
}

func (s *Server) createBlob(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Content == nil {
		unprocessable(w, "content is required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.mayWrite(w, r) {
		return
	}
	content := *req.Content
	switch req.Encoding {
	case "", "utf-8":
	case "base64":
		b, err := base64.StdEncoding.DecodeString(content)
		if err != nil {
			unprocessable(w, "content is not valid Base64")
			return
		}
		content = string(b)
	default:
		unprocessable(w, "encoding must be utf-8 or base64")
		return
	}
	sha := blobSHA(content)
	s.blobs[sha] = content
	writeJSON(w, http.StatusCreated, map[string]any{"sha": sha, "url": s.URL + "repos/" + r.PathValue("owner") + "/" + r.PathValue("repo") + "/git/blobs/" + sha})
}

func (s *Server) createTree(w http.ResponseWriter, r *http.Request) {
	var req struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string  `json:"path"`
			Mode    string  `json:"mode"`
			Type    string  `json:"type"`
			SHA     *string `json:"sha"`
			Content *string `json:"content"`
		} `json:"tree"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		unprocessable(w, "Problems parsing JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.mayWrite(w, r) {
		return
	}
	s.git.init()
	files, modes := map[string]string{}, map[string]string{}
	if req.BaseTree != "" {
		base, ok := s.git.trees[req.BaseTree]
		if !ok {
			unprocessable(w, "base_tree is not a valid tree oid")
			return
		}
		for k, v := range base {
			files[k] = v
		}
		for k, v := range s.git.modes[req.BaseTree] {
			modes[k] = v
		}
	}
	for _, e := range req.Tree {
		if e.Path == "" || strings.HasPrefix(e.Path, "/") || strings.Contains(e.Path, "//") {
			unprocessable(w, "tree.path contains a malformed path component")
			return
		}
		switch e.Mode {
		case "100644":
			delete(modes, e.Path)
		case "100755", "120000":
			modes[e.Path] = e.Mode
		default:
			unprocessable(w, "tree.mode must be a file mode this fake knows (100644, 100755, 120000)")
			return
		}
		switch {
		case e.Content != nil:
			files[e.Path] = *e.Content
		case e.SHA == nil:
			delete(files, e.Path) // sha null removes the file
			delete(modes, e.Path)
		default:
			c, ok := s.blobs[*e.SHA]
			if !ok {
				unprocessable(w, "tree.sha "+*e.SHA+" is not a valid blob")
				return
			}
			files[e.Path] = c
		}
	}
	sha := treeSHA(files, modes)
	s.git.trees[sha], s.git.modes[sha] = files, modes
	writeJSON(w, http.StatusCreated, map[string]any{"sha": sha, "truncated": false})
}

func (s *Server) createCommit(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Message string   `json:"message"`
		Tree    string   `json:"tree"`
		Parents []string `json:"parents"`
		Author  *struct {
			Name  string `json:"name"`
			Email string `json:"email"`
		} `json:"author"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Message == "" || req.Tree == "" {
		unprocessable(w, "message and tree are required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.mayWrite(w, r) {
		return
	}
	s.git.init()
	files, ok := s.git.trees[req.Tree]
	if !ok {
		unprocessable(w, "Tree SHA does not exist")
		return
	}
	repo := r.PathValue("owner") + "/" + r.PathValue("repo")
	rp := s.repo(r.PathValue("owner"), r.PathValue("repo"))
	for _, p := range req.Parents {
		if _, ok := rp.commits[p]; !ok {
			unprocessable(w, "Parent SHA does not exist or is not a commit object")
			return
		}
	}
	author := BotLogin // an installation token's commit is the App's
	if req.Author != nil && req.Author.Name != "" {
		author = req.Author.Name
	}
	h := sha1.New()
	fmt.Fprintf(h, "commit\x00%s\x00%s\x00%s\x00%s", req.Tree, strings.Join(req.Parents, ","), author, req.Message)
	sha := hex.EncodeToString(h.Sum(nil))
	rp.commits[sha] = files
	if rp.modes == nil {
		rp.modes = map[string]map[string]string{}
	}
	rp.modes[sha] = s.git.modes[req.Tree]
	info := &CommitInfo{SHA: sha, Tree: req.Tree, Message: req.Message, Parents: append([]string(nil), req.Parents...), Author: author}
	sub(s.git.meta, repo)[sha] = info
	writeJSON(w, http.StatusCreated, commitJSON(info))
}

func (s *Server) getCommit(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	rp := s.repo(r.PathValue("owner"), r.PathValue("repo"))
	files, ok := rp.commits[r.PathValue("sha")]
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, commitJSON(s.commitInfo(r.PathValue("owner")+"/"+r.PathValue("repo"), r.PathValue("sha"), files)))
}

func refJSON(branch, sha string) map[string]any {
	return map[string]any{"ref": "refs/heads/" + branch, "object": map[string]any{"sha": sha, "type": "commit"}}
}

func (s *Server) getRef(w http.ResponseWriter, r *http.Request) {
	branch, ok := strings.CutPrefix(r.PathValue("ref"), "heads/")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	sha := s.git.refs[r.PathValue("owner")+"/"+r.PathValue("repo")][branch]
	if !ok || sha == "" {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, refJSON(branch, sha))
}

// descends reports whether commit from has ancestor (or is it).
func (s *Server) descends(repo, from, ancestor string) bool {
	seen := map[string]bool{}
	queue := []string{from}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == ancestor {
			return true
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		if info := s.git.meta[repo][c]; info != nil {
			queue = append(queue, info.Parents...)
		}
	}
	return false
}

// updateRef moves a branch as GitHub does: 422 "Update is not a fast
// forward" unless force or the new commit descends from the branch's,
// 422 with the rule's message on a protected branch, 422 "Reference does
// not exist" for no such branch.
func (s *Server) updateRef(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.SHA == "" {
		unprocessable(w, "sha is required")
		return
	}
	branch, ok := strings.CutPrefix(r.PathValue("ref"), "heads/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.mayWrite(w, r) {
		return
	}
	s.git.init()
	repo := r.PathValue("owner") + "/" + r.PathValue("repo")
	cur := s.git.refs[repo][branch]
	rp := s.repo(r.PathValue("owner"), r.PathValue("repo"))
	doc := "https://docs.github.com/rest/git/refs#update-a-reference"
	switch {
	case !ok || cur == "":
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Reference does not exist", "documentation_url": doc})
	case rp.commits[req.SHA] == nil:
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Object does not exist", "documentation_url": doc})
	case s.git.protected[repo][branch] != "":
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": s.git.protected[repo][branch], "documentation_url": doc})
	case !req.Force && !s.descends(repo, req.SHA, cur):
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Update is not a fast forward", "documentation_url": doc})
	default:
		s.git.refs[repo][branch] = req.SHA
		s.followBranch(repo, branch, req.SHA)
		writeJSON(w, http.StatusOK, refJSON(branch, req.SHA))
	}
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	run := s.repo(r.PathValue("owner"), r.PathValue("repo")).runs[id]
	if run == nil {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, runJSON(run))
}

// installation answers GET /app/installations/{id} for a JWT signed by
// the app, with the installation's permissions.
func (s *Server) installation(w http.ResponseWriter, r *http.Request) {
	if !s.appJWT(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "A JSON web token could not be decoded"})
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		notFound(w)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "app_id": s.appID, "repository_selection": "selected", "permissions": s.permissions(id)})
}
