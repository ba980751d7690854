// Package fakegithub is an in-process fake of the GitHub REST and GraphQL
// APIs the bot calls, for tests. It behaves like GitHub where the bot could
// get it wrong: installation tokens are issued only for a JWT signed with
// the app's key and every other call needs one; lists paginate with Link
// headers; a review comment outside the diff, or with a start_line not
// before its line, gets 422 and nothing of the review is kept; a check-run
// request with more than 50 annotations gets 422; every answer carries
// rate-limit headers; the tarball endpoint answers 302 to a codeload-like
// download carrying a one-time token; 5xx and secondary-rate-limit answers
// can be injected; and every call is recorded with the route that answered
// it (Count, Tally, ReadRequests).
package fakegithub

import (
	"cmp"
	"crypto/rsa"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v4"
)

// BotLogin is the author of everything the app posts.
const BotLogin = "prodready[bot]"

// Call is one request the fake answered.
type Call struct {
	Method, Path string
	// Route is the pattern that answered it, e.g.
	// "GET /repos/{owner}/{repo}/git/blobs/{sha}" (Route* constants); empty
	// for a path no route matches.
	Route  string
	Status int
	// Body is the request body.
	Body []byte
}

// String renders "METHOD /path STATUS".
func (c Call) String() string { return fmt.Sprintf("%s %s %d", c.Method, c.Path, c.Status) }

// Fault is an injected failure: the next Times requests whose method is
// Method and whose path starts with PathPrefix are answered Status.
// Secondary makes it GitHub's secondary-rate-limit 403 (with Retry-After).
// After carries the request out first and then answers Status: the answer
// to a create that happened is lost, as behind a proxy that timed out.
// Delay holds the answer that long first (a slow read); with Status 0 the
// request is then answered normally. Answer, when set, is the JSON body
// of the fault's answer, with Status or 200: an answer that arrives whole
// but holds what GitHub would not send.
type Fault struct {
	Method, PathPrefix string
	Status             int
	Times              int
	Secondary          bool
	After              bool
	Delay              time.Duration
	Answer             any
}

// Annotation is one check-run annotation the fake received.
type Annotation struct {
	Path            string `json:"path"`
	StartLine       int    `json:"start_line"`
	EndLine         int    `json:"end_line"`
	AnnotationLevel string `json:"annotation_level"`
	Message         string `json:"message"`
	Title           string `json:"title"`
	RawDetails      string `json:"raw_details"`
}

// CheckRun is the state of one check run.
type CheckRun struct {
	ID                                int64
	Name, HeadSHA, Status, Conclusion string
	// ExternalID is the integrator's reference; AppID the app that
	// created the run; StartedAt when it was created.
	ExternalID     string
	AppID          int64
	StartedAt      time.Time
	Title, Summary string
	Annotations    []Annotation
	// Text is the output's text; Actions the requested actions offered.
	Text    string
	Actions []Action
	// Requests counts the create and update requests.
	Requests int
}

// Comment is one review comment.
type Comment struct {
	ID              int64
	Path            string
	Line, StartLine int
	Side, StartSide string
	Body            string
	CommitID        string
	InReplyTo       int64
	User            string
	ReviewID        int64
	// ThreadID is the GraphQL id of the thread a top-level comment starts;
	// Resolved is that thread's state.
	ThreadID string
	// PR is the number of the pull request the comment is on.
	PR       int
	Resolved bool
	// Edits counts the PATCH requests that rewrote the body.
	Edits int
}

// Review is one posted review.
type Review struct {
	ID                    int64
	CommitID, Event, Body string
	Comments              []Comment
	// PR is the number of the pull request the review is on; User its
	// author's login.
	PR   int
	User string
}

type pr struct {
	number     int
	base, head string
}

type repo struct {
	commits  map[string]map[string]string // sha -> path -> content
	prs      map[int]*pr
	runs     map[int64]*CheckRun
	reviews  []*Review
	comments []*Comment
	// archiveExtra are entries added to every tarball (AddArchiveEntry).
	archiveExtra []ArchiveEntry
	// modes are tree entry modes other than 100644, by commit and path.
	modes map[string]map[string]string
	// subtrees are the folders of commits the tree listings named, by the
	// SHA they gave each: its commit and its path.
	subtrees map[string][2]string
}

// Server is the fake GitHub.
type Server struct {
	// URL is the API root, with a trailing slash.
	URL string
	// MaxPerPage caps per_page (GitHub's is 100); lower it to test paging.
	MaxPerPage int
	// TreeLimit caps the entries of a recursive tree listing, past which
	// it answers the first TreeLimit with truncated true (GitHub's is
	// 100,000, with 7 MB); 0 is GitHub's. Lower it to test truncation.
	TreeLimit int

	srv    *httptest.Server
	appID  int64
	pub    *rsa.PublicKey
	mu     sync.Mutex
	tokens map[string]int64
	repos  map[string]*repo
	blobs  map[string]string
	// shas are the blob SHAs of contents listed in trees, by content:
	// GitHub's API returns each tree entry's SHA stored, so the fake does
	// not compute it again for every listing (shaOf).
	shas   map[string]string
	calls  []Call
	faults []*Fault
	holds  []*hold
	nextID int64
	remain int
	// archiveTokens are the one-time tokens of archive download links.
	archiveTokens map[string]string
	// git holds branches, commit parents, trees, protections and the
	// installations' permissions (gitdata.go).
	git gitState
	// collaborators are users' roles by "owner/name/login", lower case
	// (SetCollaborator).
	collaborators map[string]string
}

// New starts a fake GitHub for the app appID whose JWTs verify with pub.
// Close it when done.
func New(appID int64, pub *rsa.PublicKey) *Server {
	s := &Server{appID: appID, pub: pub, MaxPerPage: 100, tokens: map[string]int64{}, repos: map[string]*repo{}, blobs: map[string]string{}, shas: map[string]string{}, nextID: 1000, remain: 5000, archiveTokens: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /app/installations/{id}/access_tokens", s.accessToken)
	mux.HandleFunc(RoutePRFiles, s.auth(s.prFiles))
	mux.HandleFunc(RouteContents, s.auth(s.contents))
	mux.HandleFunc(RouteTree, s.auth(s.tree))
	mux.HandleFunc(RouteBlob, s.auth(s.blob))
	mux.HandleFunc(RouteTarball, s.auth(s.tarballLink))
	mux.HandleFunc(RouteCodeload, s.codeload)
	mux.HandleFunc("POST /repos/{owner}/{repo}/check-runs", s.auth(s.createRun))
	mux.HandleFunc("PATCH /repos/{owner}/{repo}/check-runs/{id}", s.auth(s.updateRun))
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}", s.auth(s.getPR))
	mux.HandleFunc("GET /repos/{owner}/{repo}/pulls/{n}/comments", s.auth(s.listComments))
	mux.HandleFunc("POST /repos/{owner}/{repo}/pulls/{n}/comments/{id}/replies", s.auth(s.reply))
	mux.HandleFunc("POST /repos/{owner}/{repo}/pulls/{n}/comments", s.auth(s.reply))
	mux.HandleFunc("POST /repos/{owner}/{repo}/pulls/{n}/reviews", s.auth(s.createReview))
	mux.HandleFunc(RouteListReviews, s.auth(s.listReviews))
	mux.HandleFunc(RouteRunsForRef, s.auth(s.runsForRef))
	mux.HandleFunc("PATCH /repos/{owner}/{repo}/pulls/comments/{id}", s.auth(s.editComment))
	mux.HandleFunc("POST /graphql", s.auth(s.graphql))
	mux.HandleFunc(RouteCompare, s.auth(s.compare))
	mux.HandleFunc(RouteCollaboratorPermission, s.auth(s.collaboratorPermission))
	s.registerGitData(mux)
	s.srv = httptest.NewServer(s.record(mux))
	s.URL = s.srv.URL + "/"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// AddCommit stores a commit's files (path -> content) under sha.
func (s *Server) AddCommit(owner, name, sha string, files map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, name)
	cp := map[string]string{}
	for p, c := range files {
		cp[p] = c
		s.blobs[s.shaOf(c)] = c
	}
	r.commits[sha] = cp
}

// SetTreeMode gives path in commit sha the tree mode mode (e.g. "120000"
// for a symbolic link, whose content is the link's target; "100755" for an
// executable).
func (s *Server) SetTreeMode(owner, name, sha, path, mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, name)
	if r.modes == nil {
		r.modes = map[string]map[string]string{}
	}
	if r.modes[sha] == nil {
		r.modes[sha] = map[string]string{}
	}
	r.modes[sha][path] = mode
}

// Mode returns the tree mode of path in commit sha: "100644" unless
// SetTreeMode or the commit's tree (CreateTree) gave it another, "" when
// the commit has no such file.
func (s *Server) Mode(owner, name, sha, path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, name)
	if _, ok := r.commits[sha][path]; !ok {
		return ""
	}
	if m := r.modes[sha][path]; m != "" {
		return m
	}
	return "100644"
}

// SetPR makes pull request number compare head against base (both added
// with AddCommit); its files and patches are computed from them. A head
// whose parents are not recorded (SetParents) is taken to branch off base:
// base becomes its parent, so base is the merge base.
func (s *Server) SetPR(owner, name string, number int, base, head string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	if m := sub(s.git.meta, owner+"/"+name); m[head] == nil && head != base {
		m[head] = &CommitInfo{SHA: head, Message: "commit", Parents: []string{base}}
	}
	s.repo(owner, name).prs[number] = &pr{number: number, base: base, head: head}
}

// Inject adds a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults drops the faults not used up yet: GitHub answers again.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

type hold struct {
	method, prefix string
	reached        chan struct{}
	release        chan struct{}
	once           sync.Once
}

// Hold makes requests whose method is method and whose path starts with
// prefix wait until release is called; reached is closed when the first
// such request arrives. Call release before Close.
func (s *Server) Hold(method, prefix string) (reached <-chan struct{}, release func()) {
	h := &hold{method: method, prefix: prefix, reached: make(chan struct{}), release: make(chan struct{})}
	s.mu.Lock()
	s.holds = append(s.holds, h)
	s.mu.Unlock()
	var once sync.Once
	return h.reached, func() { once.Do(func() { close(h.release) }) }
}

// Calls returns every call so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// ResetCalls forgets the calls recorded so far.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// CheckRuns returns the repository's check runs by id order.
func (s *Server) CheckRuns(owner, name string) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, r := range s.repo(owner, name).runs {
		c := *r
		c.Annotations = append([]Annotation(nil), r.Annotations...)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Reviews returns the reviews posted on the repository.
func (s *Server) Reviews(owner, name string) []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	return values(s.repo(owner, name).reviews)
}

// Comments returns the review comments on the repository (with thread state).
func (s *Server) Comments(owner, name string) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return values(s.repo(owner, name).comments)
}

// SetResolved resolves or reopens the review thread that comment id
// starts, as a person would in the web UI.
func (s *Server) SetResolved(owner, name string, id int64, resolved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.repo(owner, name).comments {
		if c.ID == id {
			c.Resolved = resolved
		}
	}
}

// values copies what ps point to, so callers read a snapshot.
func values[T any](ps []*T) []T {
	var out []T
	for _, p := range ps {
		out = append(out, *p)
	}
	return out
}

func (s *Server) repo(owner, name string) *repo {
	k := owner + "/" + name
	r := s.repos[k]
	if r == nil {
		r = &repo{commits: map[string]map[string]string{}, prs: map[int]*pr{}, runs: map[int64]*CheckRun{}}
		s.repos[k] = r
	}
	return r
}

// shaOf is blobSHA(content), computed once per content; s.mu is held.
func (s *Server) shaOf(content string) string {
	if sha, ok := s.shas[content]; ok {
		return sha
	}
	sha := blobSHA(content)
	s.shas[content] = sha
	return sha
}

func blobSHA(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// record applies faults and rate-limit headers and records the call.
func (s *Server) record(next *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, route := next.Handler(r)
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		s.mu.Lock()
		s.remain = max(s.remain-1, 1)
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(s.remain))
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		w.Header().Set("X-RateLimit-Resource", "core")
		var held *hold
		for _, h := range s.holds {
			if h.method == r.Method && strings.HasPrefix(r.URL.Path, h.prefix) {
				held = h
			}
		}
		var fault *Fault
		for _, f := range s.faults {
			if f.Times > 0 && f.Method == r.Method && strings.HasPrefix(r.URL.Path, f.PathPrefix) {
				f.Times--
				fault = f
				break
			}
		}
		s.mu.Unlock()
		if held != nil {
			held.once.Do(func() { close(held.reached) })
			<-held.release
		}
		if fault != nil && fault.Delay > 0 {
			select {
			case <-time.After(fault.Delay):
			case <-r.Context().Done():
			}
		}
		switch {
		case fault != nil && fault.After:
			// Carried out, and its answer replaced by the fault's.
			next.ServeHTTP(discardWriter{header: http.Header{}}, r)
			writeJSON(sw, fault.Status, map[string]any{"message": "Bad Gateway"})
		case fault != nil && fault.Answer != nil:
			writeJSON(sw, cmp.Or(fault.Status, http.StatusOK), fault.Answer)
		case fault != nil && fault.Secondary:
			w.Header().Set("Retry-After", "1")
			writeJSON(sw, http.StatusForbidden, map[string]any{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"})
		case fault != nil && fault.Status != 0:
			writeJSON(sw, fault.Status, map[string]any{"message": "Server Error"})
		default:
			next.ServeHTTP(sw, r)
		}
		s.mu.Lock()
		s.calls = append(s.calls, Call{Method: r.Method, Path: r.URL.Path, Route: route, Status: sw.status, Body: body})
		s.mu.Unlock()
	})
}

// discardWriter takes an answer no one reads (a Fault with After).
type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
}

func unprocessable(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Unprocessable Entity", "errors": []string{msg}, "documentation_url": "https://docs.github.com/rest"})
}

// appJWT reports whether r carries a JWT the app signed, as GitHub
// requires of the /app endpoints: RS256 with the app's key, issued by the
// app's id, expiring within 10 minutes (11 with clock drift).
func (s *Server) appJWT(r *http.Request) bool {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	claims := &jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		if _, ok := t.Method.(*jwt.SigningMethodRSA); !ok {
			return nil, fmt.Errorf("unexpected signing method %v", t.Header["alg"])
		}
		return s.pub, nil
	})
	return err == nil && claims.Issuer == strconv.FormatInt(s.appID, 10) && claims.ExpiresAt != nil && claims.ExpiresAt.Sub(time.Now()) <= 11*time.Minute
}

// accessToken issues an installation token for a JWT signed by the app.
func (s *Server) accessToken(w http.ResponseWriter, r *http.Request) {
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
	s.nextID++
	tok := fmt.Sprintf("ghs_fake%d", s.nextID)
	s.tokens[tok] = id
	perms := s.permissions(id)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"token": tok, "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "permissions": perms})
}

// auth refuses calls without a valid installation token.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a := r.Header.Get("Authorization")
		tok, ok := strings.CutPrefix(a, "token ")
		if !ok {
			tok, _ = strings.CutPrefix(a, "Bearer ")
		}
		s.mu.Lock()
		_, valid := s.tokens[tok]
		s.mu.Unlock()
		if !valid {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Bad credentials"})
			return
		}
		h(w, r)
	}
}

// page cuts items to the requested page and sets the Link header.
func page[T any](s *Server, w http.ResponseWriter, r *http.Request, items []T) []T {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, s.MaxPerPage)
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	p = max(p, 1)
	last := max((len(items)+per-1)/per, 1)
	link := func(n int, rel string) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		q.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, s.srv.URL, r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if p < last {
		links = append(links, link(p+1, "next"), link(last, "last"))
	}
	if p > 1 {
		links = append(links, link(1, "first"), link(p-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo := min((p-1)*per, len(items))
	hi := min(lo+per, len(items))
	return items[lo:hi]
}

func (s *Server) lookupPR(r *http.Request) (*repo, *pr) {
	rp := s.repos[r.PathValue("owner")+"/"+r.PathValue("repo")]
	if rp == nil {
		return nil, nil
	}
	n, _ := strconv.Atoi(r.PathValue("n"))
	return rp, rp.prs[n]
}

type fileDiff struct {
	path, status, sha string
	hunks             []hunk
	// tooLarge is a diff GitHub gives no patch for: a binary file, or a
	// file's diff over the documented per-file limit (3,000 lines or
	// 100 KB of raw diff). Its lines take no review comment.
	tooLarge bool
}

// GitHub's documented per-file diff limits, past which the files listing
// has no patch for the file.
const (
	maxPatchLines = 3000
	maxPatchBytes = 100 << 10
)

// omitsPatch reports whether GitHub gives no patch for the diff of b.
func omitsPatch(b string, hs []hunk) bool {
	if strings.IndexByte(b, 0) >= 0 {
		return true
	}
	lines, size := 0, 0
	for _, h := range hs {
		lines += len(h.lines)
		for _, l := range h.lines {
			size += len(l) + 1
		}
	}
	return lines > maxPatchLines || size > maxPatchBytes
}

// prDiff computes the pull request's changed files, in path order, as
// GitHub does: against the merge base of the base and head commits (a
// three-dot diff), the base commit itself when the fake knows no common
// ancestor. Under s.mu.
func (s *Server) prDiff(repoName string, rp *repo, p *pr) []fileDiff {
	from := p.base
	if mb, ok := s.mergeBase(repoName, p.base, p.head); ok {
		from = mb
	}
	base, head := rp.commits[from], rp.commits[p.head]
	paths := map[string]bool{}
	for k := range base {
		paths[k] = true
	}
	for k := range head {
		paths[k] = true
	}
	var out []fileDiff
	for path := range paths {
		a, inA := base[path]
		b, inB := head[path]
		if inA && inB && a == b {
			continue
		}
		status := "modified"
		switch {
		case !inA:
			status = "added"
		case !inB:
			status = "removed"
		}
		hs := diff(a, b)
		out = append(out, fileDiff{path: path, status: status, sha: blobSHA(b), hunks: hs, tooLarge: omitsPatch(b, hs)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// getPR answers GET …/pulls/{n} with the pull request's number, state and
// head and base commits (what SetPR last set), with their branches and
// repositories when SetPRBranches named them.
func (s *Server) getPR(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git.init()
	rp, p := s.lookupPR(r)
	if p == nil {
		notFound(w)
		return
	}
	repo := r.PathValue("owner") + "/" + r.PathValue("repo")
	side := func(ref, sha, full string) map[string]any {
		owner, name, _ := strings.Cut(full, "/")
		return map[string]any{"ref": ref, "sha": sha, "repo": map[string]any{"full_name": full, "name": name, "owner": map[string]any{"login": owner}}}
	}
	b := s.git.branches[repo+"#"+r.PathValue("n")]
	if b == nil {
		b = &PRBranches{State: "open", HeadRepo: repo}
	}
	writeJSON(w, http.StatusOK, map[string]any{"number": p.number, "state": b.State, "draft": false,
		"changed_files": len(s.prDiff(repo, rp, p)),
		"html_url":      fmt.Sprintf("%s%s/pull/%d", s.URL, repo, p.number),
		"base":          side(b.BaseRef, p.base, repo), "head": side(b.HeadRef, p.head, b.HeadRepo)})
}

// maxPRFiles is how many of a pull request's files GitHub's listing gives
// (its pages together); the pull request's changed_files counts them all.
const maxPRFiles = 3000

func (s *Server) prFiles(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p := s.lookupPR(r)
	if p == nil {
		notFound(w)
		return
	}
	var items []map[string]any
	files := s.prDiff(r.PathValue("owner")+"/"+r.PathValue("repo"), rp, p)
	if len(files) > maxPRFiles {
		files = files[:maxPRFiles]
	}
	for _, f := range files {
		item := map[string]any{"sha": f.sha, "filename": f.path, "status": f.status}
		if !f.tooLarge {
			item["patch"] = patch(f.hunks)
		}
		items = append(items, item)
	}
	writeJSON(w, http.StatusOK, page(s, w, r, items))
}

func (s *Server) contents(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[r.PathValue("owner")+"/"+r.PathValue("repo")]
	if rp == nil {
		notFound(w)
		return
	}
	files, ok := rp.commits[r.URL.Query().Get("ref")]
	c, found := files[r.PathValue("path")]
	if !ok || !found {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"type": "file", "encoding": "base64", "path": r.PathValue("path"), "sha": blobSHA(c), "size": len(c), "content": base64.StdEncoding.EncodeToString([]byte(c))})
}

func (s *Server) tree(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[r.PathValue("owner")+"/"+r.PathValue("repo")]
	if rp == nil {
		notFound(w)
		return
	}
	// A commit's SHA names its root tree (GitHub takes either); a folder's
	// is the one an earlier listing gave it.
	commit, dir := r.PathValue("sha"), ""
	if rp.commits[commit] == nil {
		sub, ok := rp.subtrees[commit]
		if !ok {
			notFound(w)
			return
		}
		commit, dir = sub[0], sub[1]
	}
	files := rp.commits[commit]
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	recursive := r.URL.Query().Get("recursive") != ""
	entries := make([]treeEntry, 0, len(files))
	dirs := map[string]bool{}
	for full, c := range files {
		p, ok := strings.CutPrefix(full, prefix)
		if !ok {
			continue
		}
		parts := strings.Split(p, "/")
		for i := 1; i < len(parts); i++ {
			dirs[strings.Join(parts[:i], "/")] = true
		}
		if !recursive && len(parts) > 1 {
			continue
		}
		mode := "100644"
		if m := rp.modes[commit][full]; m != "" {
			mode = m
		}
		size := len(c)
		entries = append(entries, treeEntry{Path: p, Mode: mode, Type: "blob", SHA: s.shaOf(c), Size: &size})
	}
	for d := range dirs {
		if !recursive && strings.Contains(d, "/") {
			continue
		}
		entries = append(entries, treeEntry{Path: d, Mode: "040000", Type: "tree", SHA: rp.subtreeSHA(commit, prefix+d)})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	limit, truncated := s.TreeLimit, false
	if limit <= 0 {
		limit = 100000
	}
	if recursive && len(entries) > limit {
		entries, truncated = entries[:limit], true
	}
	writeJSON(w, http.StatusOK, map[string]any{"sha": r.PathValue("sha"), "tree": entries, "truncated": truncated})
}

// subtreeSHA is the SHA the listings give folder dir of commit (derived
// from both, as a tree's SHA is from its content), kept so that a listing
// of that SHA finds it.
func (rp *repo) subtreeSHA(commit, dir string) string {
	sum := sha1.Sum([]byte("tree\x00" + commit + "\x00" + dir))
	sha := hex.EncodeToString(sum[:])
	if rp.subtrees == nil {
		rp.subtrees = map[string][2]string{}
	}
	rp.subtrees[sha] = [2]string{commit, dir}
	return sha
}

// treeEntry is one entry of a tree listing, as GitHub's API writes it (a
// tree has no size).
type treeEntry struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"`
	SHA  string `json:"sha"`
	Size *int   `json:"size,omitempty"`
}

func (s *Server) blob(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.blobs[r.PathValue("sha")]
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sha": r.PathValue("sha"), "size": len(c), "encoding": "base64", "content": base64.StdEncoding.EncodeToString([]byte(c))})
}

// Action is a requested action a check run offers (a button).
type Action struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Identifier  string `json:"identifier"`
}

type checkRunRequest struct {
	Name       string  `json:"name"`
	HeadSHA    string  `json:"head_sha"`
	ExternalID *string `json:"external_id"`
	Status     *string `json:"status"`
	Conclusion *string `json:"conclusion"`
	Output     *struct {
		Title       string       `json:"title"`
		Summary     string       `json:"summary"`
		Text        string       `json:"text"`
		Annotations []Annotation `json:"annotations"`
	} `json:"output"`
	Actions *[]Action `json:"actions"`
}

func (s *Server) applyRun(w http.ResponseWriter, run *CheckRun, req checkRunRequest) bool {
	if req.Output != nil {
		if len(req.Output.Annotations) > 50 {
			unprocessable(w, "Only 50 annotations allowed per request")
			return false
		}
		if req.Output.Title == "" || req.Output.Summary == "" {
			unprocessable(w, "output.title and output.summary are required")
			return false
		}
		if utf8.RuneCountInString(req.Output.Summary) > 65535 {
			unprocessable(w, "output.summary is too long (maximum is 65535 characters)")
			return false
		}
		for _, a := range req.Output.Annotations {
			if a.Path == "" || a.StartLine < 1 || a.EndLine < a.StartLine || a.Message == "" || len(a.Title) > 255 {
				unprocessable(w, "invalid annotation")
				return false
			}
		}
	}
	if req.Actions != nil {
		if len(*req.Actions) > 3 {
			unprocessable(w, "Only 3 actions allowed per check run")
			return false
		}
		for _, a := range *req.Actions {
			if a.Label == "" || utf8.RuneCountInString(a.Label) > 20 || utf8.RuneCountInString(a.Description) > 40 || a.Identifier == "" || utf8.RuneCountInString(a.Identifier) > 20 {
				unprocessable(w, "invalid action: label and identifier up to 20 characters, description up to 40")
				return false
			}
		}
	}
	if req.Conclusion != nil && (req.Status == nil || *req.Status != "completed") {
		// GitHub sets status completed when a conclusion is given.
		c := "completed"
		req.Status = &c
	}
	if req.Status != nil && *req.Status == "completed" && req.Conclusion == nil {
		unprocessable(w, "conclusion is required when status is completed")
		return false
	}
	if req.Name != "" {
		run.Name = req.Name
	}
	if req.ExternalID != nil {
		run.ExternalID = *req.ExternalID
	}
	if req.Status != nil {
		run.Status = *req.Status
	}
	if req.Conclusion != nil {
		run.Conclusion = *req.Conclusion
	}
	if req.Output != nil {
		run.Title, run.Summary, run.Text = req.Output.Title, req.Output.Summary, req.Output.Text
		run.Annotations = append(run.Annotations, req.Output.Annotations...)
	}
	if req.Actions != nil {
		run.Actions = append([]Action(nil), *req.Actions...)
	}
	run.Requests++
	return true
}

func (s *Server) createRun(w http.ResponseWriter, r *http.Request) {
	var req checkRunRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Name == "" || req.HeadSHA == "" {
		unprocessable(w, "name and head_sha are required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(r.PathValue("owner"), r.PathValue("repo"))
	if rp.commits[req.HeadSHA] == nil {
		unprocessable(w, "No commit found for SHA: "+req.HeadSHA)
		return
	}
	s.nextID++
	run := &CheckRun{ID: s.nextID, HeadSHA: req.HeadSHA, Status: "queued", AppID: s.appID, StartedAt: time.Now()}
	if !s.applyRun(w, run, req) {
		return
	}
	rp.runs[run.ID] = run
	writeJSON(w, http.StatusCreated, map[string]any{"id": run.ID, "name": run.Name, "head_sha": run.HeadSHA, "status": run.Status})
}

func (s *Server) updateRun(w http.ResponseWriter, r *http.Request) {
	var req checkRunRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		unprocessable(w, "bad JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	run := s.repo(r.PathValue("owner"), r.PathValue("repo")).runs[id]
	if run == nil {
		notFound(w)
		return
	}
	if !s.applyRun(w, run, req) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": run.ID, "name": run.Name, "status": run.Status, "conclusion": run.Conclusion})
}

func commentJSON(c *Comment) map[string]any {
	m := map[string]any{
		"id": c.ID, "path": c.Path, "line": c.Line, "side": c.Side, "body": c.Body, "commit_id": c.CommitID,
		"pull_request_review_id": c.ReviewID,
		"user":                   map[string]any{"login": c.User, "type": "Bot"},
	}
	if c.StartLine > 0 {
		m["start_line"], m["start_side"] = c.StartLine, c.StartSide
	}
	if c.InReplyTo != 0 {
		m["in_reply_to_id"] = c.InReplyTo
	}
	return m
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p := s.lookupPR(r)
	if p == nil {
		notFound(w)
		return
	}
	var items []map[string]any
	for _, c := range rp.comments {
		if c.PR == p.number { // GitHub lists the pull request's own comments
			items = append(items, commentJSON(c))
		}
	}
	writeJSON(w, http.StatusOK, page(s, w, r, items))
}

// reply answers both ways GitHub takes a reply: POST …/comments/{id}/replies
// and POST …/comments with in_reply_to. (A new single comment through
// POST …/comments is not supported: the bot posts reviews.)
func (s *Server) reply(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Body      string `json:"body"`
		InReplyTo int64  `json:"in_reply_to"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Body == "" {
		unprocessable(w, "body is required")
		return
	}
	id := req.InReplyTo
	if r.PathValue("id") != "" {
		id, _ = strconv.ParseInt(r.PathValue("id"), 10, 64)
	}
	if id == 0 {
		unprocessable(w, "this fake takes only replies on POST …/comments (commit_id, path and line are not supported)")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p := s.lookupPR(r)
	var parent *Comment
	if p != nil {
		for _, c := range rp.comments {
			if c.ID == id {
				parent = c
			}
		}
	}
	if parent == nil {
		notFound(w)
		return
	}
	s.nextID++
	c := &Comment{ID: s.nextID, Path: parent.Path, Line: parent.Line, Side: parent.Side, Body: req.Body, CommitID: p.head, InReplyTo: id, User: BotLogin, PR: p.number}
	rp.comments = append(rp.comments, c)
	writeJSON(w, http.StatusCreated, commentJSON(c))
}

// editComment is PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}:
// it replaces a review comment's body (required) and answers the comment;
// 404 for a comment the repository does not have.
func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Body == nil {
		unprocessable(w, "body is required")
		return
	}
	if utf8.RuneCountInString(*req.Body) > 65536 {
		unprocessable(w, "Body is too long (maximum is 65536 characters)")
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[r.PathValue("owner")+"/"+r.PathValue("repo")]
	if rp == nil {
		notFound(w)
		return
	}
	for _, c := range rp.comments {
		if c.ID == id {
			c.Body = *req.Body
			c.Edits++
			writeJSON(w, http.StatusOK, commentJSON(c))
			return
		}
	}
	notFound(w)
}

type reviewRequest struct {
	CommitID string `json:"commit_id"`
	Body     string `json:"body"`
	Event    string `json:"event"`
	Comments []struct {
		Path      string `json:"path"`
		Body      string `json:"body"`
		Line      int    `json:"line"`
		Side      string `json:"side"`
		StartLine int    `json:"start_line"`
		StartSide string `json:"start_side"`
		Position  int    `json:"position"`
	} `json:"comments"`
}

// createReview validates every comment against the diff like GitHub: one
// bad comment and the whole review is refused with 422.
func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	var req reviewRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		unprocessable(w, "Problems parsing JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p := s.lookupPR(r)
	if p == nil {
		notFound(w)
		return
	}
	switch req.Event {
	case "COMMENT", "REQUEST_CHANGES":
		if req.Body == "" && len(req.Comments) == 0 {
			unprocessable(w, "Body is required")
			return
		}
	case "APPROVE", "":
	default:
		unprocessable(w, "Invalid event")
		return
	}
	if req.CommitID != "" && rp.commits[req.CommitID] == nil {
		unprocessable(w, "No commit found for SHA: "+req.CommitID)
		return
	}
	if utf8.RuneCountInString(req.Body) > 65536 {
		unprocessable(w, "Body is too long (maximum is 65536 characters)")
		return
	}
	diffs := map[string][]hunk{}
	for _, f := range s.prDiff(r.PathValue("owner")+"/"+r.PathValue("repo"), rp, p) {
		if !f.tooLarge {
			diffs[f.path] = f.hunks
		}
	}
	for _, c := range req.Comments {
		hs, ok := diffs[c.Path]
		if !ok {
			unprocessable(w, "Path could not be resolved")
			return
		}
		if c.Position != 0 || c.Line == 0 || c.Side != "RIGHT" {
			unprocessable(w, "line and side RIGHT are required (this fake does not support position or LEFT)")
			return
		}
		if utf8.RuneCountInString(c.Body) > 65536 {
			unprocessable(w, "Body is too long (maximum is 65536 characters)")
			return
		}
		var in map[int]bool
		for _, h := range hs {
			if rl := h.rightLines(); rl[c.Line] {
				in = rl
			}
		}
		if in == nil {
			unprocessable(w, "Line could not be resolved")
			return
		}
		if c.StartLine != 0 {
			if c.StartLine >= c.Line {
				unprocessable(w, "start_line must precede the end line.")
				return
			}
			if c.StartSide != "" && c.StartSide != "RIGHT" {
				unprocessable(w, "start_side must be RIGHT")
				return
			}
			for l := c.StartLine; l <= c.Line; l++ {
				if !in[l] {
					unprocessable(w, "start_line must be part of the same hunk as the line.")
					return
				}
			}
		}
	}
	s.nextID++
	rev := &Review{ID: s.nextID, CommitID: req.CommitID, Event: req.Event, Body: req.Body, PR: p.number, User: BotLogin}
	for _, c := range req.Comments {
		s.nextID++
		cm := &Comment{ID: s.nextID, Path: c.Path, Line: c.Line, StartLine: c.StartLine, Side: c.Side, StartSide: c.StartSide, Body: c.Body, CommitID: req.CommitID, User: BotLogin, ReviewID: rev.ID, ThreadID: fmt.Sprintf("PRRT_%d", s.nextID), PR: p.number}
		rp.comments = append(rp.comments, cm)
		rev.Comments = append(rev.Comments, *cm)
	}
	rp.reviews = append(rp.reviews, rev)
	state := "COMMENTED"
	writeJSON(w, http.StatusOK, map[string]any{"id": rev.ID, "state": state, "commit_id": req.CommitID, "body": req.Body})
}

// graphql answers the reviewThreads query and the resolveReviewThread
// mutation.
func (s *Server) graphql(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	gqlErr := func(msg string) {
		writeJSON(w, http.StatusOK, map[string]any{"data": nil, "errors": []map[string]any{{"message": msg}}})
	}
	switch {
	case strings.Contains(req.Query, "resolveReviewThread"):
		// resolveReviewThread and unresolveReviewThread(input: {threadId})
		// answer {thread {id isResolved}} under the mutation's name.
		id, _ := req.Variables["id"].(string)
		name, resolved := "resolveReviewThread", true
		if strings.Contains(req.Query, "unresolveReviewThread") {
			name, resolved = "unresolveReviewThread", false
		}
		for _, rp := range s.repos {
			for _, c := range rp.comments {
				if c.ThreadID != "" && c.ThreadID == id {
					c.Resolved = resolved
					writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{name: map[string]any{"thread": map[string]any{"id": id, "isResolved": resolved}}}})
					return
				}
			}
		}
		gqlErr("Could not resolve to a node with the global id of '" + id + "'")
	case strings.Contains(req.Query, "reviewThreads"):
		owner, _ := req.Variables["owner"].(string)
		name, _ := req.Variables["name"].(string)
		num, _ := req.Variables["number"].(float64)
		rp := s.repos[owner+"/"+name]
		if rp == nil || rp.prs[int(num)] == nil {
			gqlErr("Could not resolve to a PullRequest with the number of " + strconv.Itoa(int(num)) + ".")
			return
		}
		var threads []map[string]any
		for _, c := range rp.comments {
			if c.ThreadID == "" || c.PR != int(num) {
				continue
			}
			threads = append(threads, map[string]any{"id": c.ThreadID, "isResolved": c.Resolved, "comments": map[string]any{"nodes": []map[string]any{{"databaseId": c.ID}}}})
		}
		start := 0
		if cur, ok := req.Variables["cursor"].(string); ok && cur != "" {
			start, _ = strconv.Atoi(cur)
		}
		per := min(100, s.MaxPerPage)
		start = min(start, len(threads))
		end := min(start+per, len(threads))
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"pullRequest": map[string]any{"reviewThreads": map[string]any{
			"pageInfo": map[string]any{"hasNextPage": end < len(threads), "endCursor": strconv.Itoa(end)},
			"nodes":    threads[start:end],
		}}}}})
	default:
		gqlErr("this fake answers only reviewThreads, resolveReviewThread and unresolveReviewThread")
	}
}
