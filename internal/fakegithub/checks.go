package fakegithub

import (
	"net/http"
	"sort"
	"strconv"
	"time"
)

// Routes of the listings the bot reads to find what it published before.
const (
	// RouteRunsForRef lists a commit's check runs (query check_name,
	// status, app_id and filter=latest|all, as GitHub documents them).
	RouteRunsForRef = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"
	// RouteListReviews lists a pull request's reviews, oldest first.
	RouteListReviews = "GET /repos/{owner}/{repo}/pulls/{n}/reviews"
)

// AddCheckRun stores a check run as if an app had created it (another
// app's run, or one of the bot's from before a restart) and returns its
// id. A zero AppID is the fake's own app; a zero StartedAt is now.
func (s *Server) AddCheckRun(owner, name string, run CheckRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	run.ID = s.nextID
	if run.AppID == 0 {
		run.AppID = s.appID
	}
	if run.StartedAt.IsZero() {
		run.StartedAt = time.Now()
	}
	if run.Status == "" {
		run.Status = "in_progress"
	}
	s.repo(owner, name).runs[run.ID] = &run
	return run.ID
}

// runJSON is a check run as GitHub's API answers it.
func runJSON(run *CheckRun) map[string]any {
	m := map[string]any{"id": run.ID, "name": run.Name, "head_sha": run.HeadSHA, "status": run.Status,
		"external_id": run.ExternalID, "started_at": run.StartedAt.UTC().Format(time.RFC3339),
		"app":    map[string]any{"id": run.AppID},
		"output": map[string]any{"title": run.Title, "summary": run.Summary, "text": run.Text, "annotations_count": len(run.Annotations)}}
	if run.Conclusion != "" {
		m["conclusion"] = run.Conclusion
	}
	return m
}

// runsForRef answers the check runs of a commit. With filter=latest (the
// default) only the most recent run of each name is listed.
func (s *Server) runsForRef(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(r.PathValue("owner"), r.PathValue("repo"))
	ref := r.PathValue("ref")
	q := r.URL.Query()
	if f := q.Get("filter"); f != "" && f != "latest" && f != "all" {
		unprocessable(w, "filter must be latest or all")
		return
	}
	var runs []*CheckRun
	for _, run := range rp.runs {
		if run.HeadSHA != ref {
			continue
		}
		if n := q.Get("check_name"); n != "" && run.Name != n {
			continue
		}
		if st := q.Get("status"); st != "" && run.Status != st {
			continue
		}
		if a := q.Get("app_id"); a != "" && a != strconv.FormatInt(run.AppID, 10) {
			continue
		}
		runs = append(runs, run)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	if q.Get("filter") != "all" {
		seen := map[string]bool{}
		latest := runs[:0]
		for _, run := range runs {
			if !seen[run.Name] {
				seen[run.Name] = true
				latest = append(latest, run)
			}
		}
		runs = latest
	}
	total := len(runs)
	out := []map[string]any{}
	for _, run := range page(s, w, r, runs) {
		out = append(out, runJSON(run))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": total, "check_runs": out})
}

// listReviews answers a pull request's reviews, oldest first.
func (s *Server) listReviews(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p := s.lookupPR(r)
	if p == nil {
		notFound(w)
		return
	}
	var mine []*Review
	for _, rev := range rp.reviews {
		if rev.PR == p.number {
			mine = append(mine, rev)
		}
	}
	out := []map[string]any{}
	for _, rev := range page(s, w, r, mine) {
		out = append(out, map[string]any{"id": rev.ID, "body": rev.Body, "commit_id": rev.CommitID, "state": "COMMENTED",
			"user": map[string]any{"login": rev.User, "type": "Bot"}})
	}
	writeJSON(w, http.StatusOK, out)
}
