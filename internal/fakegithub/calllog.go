package fakegithub

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Count returns how many recorded calls were answered by route (one of the
// Route* constants or any pattern of the fake, e.g.
// "POST /repos/{owner}/{repo}/check-runs").
func (s *Server) Count(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if c.Route == route {
			n++
		}
	}
	return n
}

// Tally counts the recorded calls by route (calls no route matched are
// counted under "METHOD path").
func (s *Server) Tally() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, c := range s.calls {
		k := c.Route
		if k == "" {
			k = c.Method + " " + c.Path
		}
		out[k]++
	}
	return out
}

// ReadRequests counts the recorded API requests that read the repository
// or the pull request: every GET to the API, and GraphQL queries (not
// mutations). Archive downloads from RouteCodeload are not API requests
// (GitHub does not count them against the rate limit) and are left out.
func (s *Server) ReadRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		switch {
		case c.Route == RouteCodeload:
		case c.Method == http.MethodGet:
			n++
		case c.Path == "/graphql" && !strings.Contains(string(c.Body), "mutation"):
			n++
		}
	}
	return n
}

// TallyString renders Tally one "route: n" per line, sorted, for failure
// messages.
func (s *Server) TallyString() string {
	t := s.Tally()
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteString(": ")
		b.WriteString(strconv.Itoa(t[k]))
		b.WriteString("\n")
	}
	return b.String()
}
