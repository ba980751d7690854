package ghaction

import (
	"errors"
	"net/http"
	"time"

	ghv "github.com/prodready/prodready/vcs/github"
)

// bearer adds the workflow token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// NewAPI returns a vcs/github Host that calls the REST API at baseURL with
// token (the workflow's GITHUB_TOKEN or a personal access token: a plain
// bearer token, not an App installation), retrying 5xx answers and rate
// limits like the App does. transport sends the requests
// (http.DefaultTransport when nil).
func NewAPI(token, baseURL, checkName string, transport http.RoundTripper) (*ghv.Host, error) {
	if token == "" {
		return nil, errors.New("no GitHub token (the action's token input, GITHUB_TOKEN)")
	}
	retry := &ghv.RetryTransport{Base: bearer{token: token, base: orDefault(transport)}, Budget: 2 * time.Minute}
	h, err := ghv.NewHost(&http.Client{Transport: retry, Timeout: 5 * time.Minute}, baseURL)
	if err != nil {
		return nil, err
	}
	// BotLogin stays empty: an earlier run's comments are recognised by
	// their fingerprint markers on any bot account (github-actions[bot]
	// for the workflow token).
	h.CheckName = checkName
	return h, nil
}

func orDefault(t http.RoundTripper) http.RoundTripper {
	if t == nil {
		return http.DefaultTransport
	}
	return t
}
