package fakegithub

// AddToken accepts tok as a plain bearer token, like the GITHUB_TOKEN a
// workflow run gets, without the App JWT exchange.
func (s *Server) AddToken(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[tok] = 0
}
