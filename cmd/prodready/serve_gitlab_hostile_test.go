package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/inert"
	"github.com/prodready/prodready/internal/testconfig"
)

// hostileSelector is a Service whose selector value carries GitLab quick
// actions and a mention on lines of their own: quoted raw, the bot's note
// would approve and merge the merge request in its own name.
const hostileSelector = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: "web\n/approve\n/merge\n@maintainer [x](http://evil)"
  ports:
    - port: 80
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`

// TestServeGitLabHostileValuesDoNotAct runs `prodready serve` with GitLab
// only, on a merge request whose Service selector value holds quick
// actions, a mention and a link: the bot's notes name the finding, and no
// line of them outside a code block starts with "/", nor does any mention,
// link or HTML from the value survive outside a code span.
func TestServeGitLabHostileValuesDoNotAct(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	const (
		token, secret = "glpat-hostile", "gitlab-hostile-secret"
		project       = 9
	)
	config := testconfig.OnlyRule("service-selects-nothing")
	gl, head := gitLabMergeRequest(t, token, project, 0, map[string]string{"README.md": "hi\n", ".prodready.yaml": config},
		map[string]string{"README.md": "hi\n", ".prodready.yaml": config, "deploy/svc.yaml": hostileSelector})

	r := startGitLabServe(t, "gitlab", gl, token, secret)
	if code := r.deliverGitLab(t, secret, "Merge Request Hook", "mr-hostile", mergeRequestOpened(project, 501, head)); code != http.StatusAccepted {
		t.Fatalf("Merge Request Hook: %d", code)
	}
	waitFor(t, "the review's commit status", func() bool {
		for _, s := range gl.Statuses() {
			if s.SHA == head && (s.State == "failed" || s.State == "success") {
				return true
			}
		}
		return false
	})
	named := false
	for _, d := range gl.Discussions(project, 1) {
		for _, n := range d.Notes {
			if n.Author.ID != gl.User.ID {
				continue
			}
			if strings.Contains(n.Body, "service-selects-nothing") && strings.Contains(n.Body, "approve") {
				named = true
			}
			if got := inert.Commands(n.Body); got != n.Body {
				t.Errorf("a line of the bot's note starts with / outside a code block:\n%s", n.Body)
			}
			if leaks := inert.Leaks(n.Body); len(leaks) > 0 {
				t.Errorf("the bot's note lets text from the file act: %v\n%s", leaks, n.Body)
			}
		}
	}
	if !named {
		t.Errorf("no note of the bot names service-selects-nothing: %+v", gl.Discussions(project, 1))
	}
}
