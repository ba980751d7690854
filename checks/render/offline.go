package render

import (
	"fmt"
	"net/http"
)

// offlineTransport refuses every request.
type offlineTransport struct{}

// RoundTrip refuses req without sending it.
func (offlineTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, fmt.Errorf("prodready renders offline: %s %s refused", req.Method, req.URL.Redacted())
}

// DenyNetwork makes every HTTP request this process sends through
// http.DefaultTransport or http.DefaultClient fail with "prodready renders
// offline: … refused". It is a backstop for the renders: kustomize's loader
// gets a URL with an http.Client of its own (on http.DefaultTransport) that
// cannot be replaced from outside, and Run refuses URLs before they reach
// it. Call it at the start of a process that renders pull-request content
// and sends no request of its own (prodready check, fix and review, and the
// render worker); never in one that talks to GitHub or GitLab through the
// default transport.
func DenyNetwork() {
	http.DefaultTransport = offlineTransport{}
	http.DefaultClient.Transport = offlineTransport{}
}
