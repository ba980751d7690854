package fakegithub

import (
	"net/http"
	"strings"
)

// RouteCompare is "Compare two commits" (GET
// /repos/{owner}/{repo}/compare/{base}...{head}).
const RouteCompare = "GET /repos/{owner}/{repo}/compare/{basehead}"

// mergeBase is the nearest common ancestor of base and head by the parents
// SetParents (or Push) recorded, false when there is none the fake knows.
// Under s.mu.
func (s *Server) mergeBase(repo, base, head string) (string, bool) {
	s.git.init()
	ancestors := func(from string) []string {
		var order []string
		seen := map[string]bool{}
		queue := []string{from}
		for len(queue) > 0 {
			c := queue[0]
			queue = queue[1:]
			if seen[c] {
				continue
			}
			seen[c] = true
			order = append(order, c)
			if info := s.git.meta[repo][c]; info != nil {
				queue = append(queue, info.Parents...)
			}
		}
		return order
	}
	ofBase := map[string]bool{}
	for _, c := range ancestors(base) {
		ofBase[c] = true
	}
	for _, c := range ancestors(head) {
		if ofBase[c] {
			return c, true
		}
	}
	return "", false
}

// compare answers "Compare two commits": the base commit, the merge base
// (merge_base_commit), status and counts; commits and files are left empty
// (the fake does not list them). 404 for an unknown commit, or when the
// two have no common ancestor the fake knows, as GitHub answers then.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	base, head, ok := strings.Cut(r.PathValue("basehead"), "...")
	if !ok {
		notFound(w)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repoName := r.PathValue("owner") + "/" + r.PathValue("repo")
	rp := s.repos[repoName]
	if rp == nil || rp.commits[base] == nil || rp.commits[head] == nil {
		notFound(w)
		return
	}
	mb, ok := s.mergeBase(repoName, base, head)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "No common ancestor between " + base + " and " + head + "."})
		return
	}
	status := "diverged"
	switch {
	case base == head:
		status = "identical"
	case mb == base:
		status = "ahead"
	case mb == head:
		status = "behind"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"base_commit":       commitJSON(s.commitInfo(repoName, base, rp.commits[base])),
		"merge_base_commit": commitJSON(s.commitInfo(repoName, mb, rp.commits[mb])),
		"status":            status,
		"commits":           []any{},
		"files":             []any{},
	})
}
