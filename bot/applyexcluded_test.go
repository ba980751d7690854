package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/render"
)

// committingHost is a memHost that lets every fix request through and
// records what it commits and reports.
type committingHost struct {
	memHost
	commits  []FixCommit
	reported []FixReport
}

func (h *committingHost) HeadCommit(ctx context.Context, pr PullRequest) (HeadCommit, error) {
	return HeadCommit{SHA: "head"}, nil
}

func (h *committingHost) CommitFixes(ctx context.Context, pr PullRequest, c FixCommit) (string, error) {
	h.commits = append(h.commits, c)
	return "new", nil
}

func (h *committingHost) ReportFixes(ctx context.Context, pr PullRequest, req FixRequest, r FixReport) error {
	h.reported = append(h.reported, r)
	return nil
}

func (h *committingHost) AuthorizeFix(ctx context.Context, pr PullRequest, req FixRequest) error {
	return nil
}

// TestApplyFixesSaysAFixInAnExcludedValuesFileIsLeftOut: a pull request
// adds a chart whose values.yaml the base's config excludes. The render
// reads it and the replicas fix goes there, but the fix commit changes
// only files it checks: the report says the fix is left out and why, and
// no commit holds values.yaml.
func TestApplyFixesSaysAFixInAnExcludedValuesFileIsLeftOut(t *testing.T) {
	deployment := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
          ports:
            - containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - port: 80
      targetPort: 8080
`
	head := map[string]string{
		"web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":               "replicaCount: 1\n",
		"web/templates/deployment.yaml": deployment,
	}
	var changed []ChangedFile
	for p, s := range head {
		changed = append(changed, ChangedFile{Path: p, Status: "added", Patch: addedPatch(s)})
	}
	h := &committingHost{memHost: memHost{
		refs: map[string]map[string]string{
			"base": {".prodready.yaml": "exclude: [\"web/values.yaml\"]\nrules:\n  replicas-too-few: true\n"},
			"head": head,
		},
		changed: changed,
	}}
	ap := NewApplier(nil, render.InProcess, nil)
	job := Job{DeliveryID: "d", Host: h, PR: PullRequest{Repo: "o/r", Number: 1, BaseSHA: "base", HeadSHA: "head", HeadRef: "feature"}, Fix: &FixRequest{Mode: FixAll, Head: "head", Press: "p", By: "alice", Thread: "1"}}
	if err := ap.Run(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if len(h.reported) != 1 {
		t.Fatalf("reported %+v", h.reported)
	}
	const want = "web/values.yaml is not among the files this run changes (the config's include or exclude leaves it out)"
	if r := h.reported[0]; !strings.Contains(r.Text, want) || !strings.Contains(r.Text, "replicas-too-few") {
		t.Errorf("report %s %q:\n%s\nwant the replicas fix left out: %q", r.Outcome, r.Title, r.Text, want)
	}
	for _, c := range h.commits {
		for _, f := range c.Files {
			if f.Path == "web/values.yaml" {
				t.Errorf("the commit changes the excluded web/values.yaml:\n%s", f.Data)
			}
		}
	}
}
