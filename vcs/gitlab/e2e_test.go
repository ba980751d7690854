package gitlab_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/internal/testconfig"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/fakegitlab"
	"github.com/prodready/prodready/vcs/gitlab"
)

const (
	e2eToken  = "glpat-e2e"
	e2eSecret = "e2e-webhook-secret"
)

// webV1 has two probes on named ports no container declares (lines 20
// and 28); webV2 fixes the first.
const webV1 = `apiVersion: apps/v1
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
          ports:
            - name: http
              containerPort: 8080
          livenessProbe:
            tcpSocket:
              port: metrics
        - name: sidecar
          image: envoy:1.30
          ports:
            - name: admin-port
              containerPort: 9901
          readinessProbe:
            tcpSocket:
              port: admin
`

var webV2 = strings.Replace(webV1, "port: metrics", "port: http", 1)

// portSuggest proposes, for each finding, to replace its tcpSocket block
// (the line above the finding and the finding's line) with a declared port:
// a two-line suggestion, so ```suggestion:-0+1.
func portSuggest(path string, src []byte, fs []checks.Finding) ([]bot.Suggestion, error) {
	lines := strings.Split(string(src), "\n")
	var out []bot.Suggestion
	for i, f := range fs {
		if f.RuleID != "probe-named-port-undeclared" || f.Line < 2 || f.Line > len(lines) {
			continue
		}
		indent := lines[f.Line-1][:len(lines[f.Line-1])-len(strings.TrimLeft(lines[f.Line-1], " "))]
		out = append(out, bot.Suggestion{StartLine: f.Line - 1, EndLine: f.Line,
			Text: lines[f.Line-2] + "\n" + indent + "port: 8080\n", Findings: []int{i}})
	}
	return out, nil
}

// e2e is a fake GitLab, the server with the GitLab webhook route, the
// worker pool and the Reviewer; done receives each finished review.
type e2e struct {
	gl   *fakegitlab.Server
	srv  *httptest.Server
	done chan result
}

type result struct {
	delivery string
	err      error
}

func newE2E(t *testing.T, projectID int64, path string) *e2e {
	t.Helper()
	return newE2EWith(t, projectID, path, nil)
}

// newE2EWith is newE2E with the reviewer set up by configure (when not
// nil) before the pool starts.
func newE2EWith(t *testing.T, projectID int64, path string, configure func(*bot.Reviewer)) *e2e {
	t.Helper()
	fake := fakegitlab.New(e2eToken)
	t.Cleanup(fake.Close)
	fake.AddProject(projectID, path)
	host, err := gitlab.NewHost(gitlab.Options{BaseURL: fake.URL, Token: e2eToken, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rv := bot.NewReviewer(bot.NewLRUCache(1<<20), nil)
	rv.Suggest = portSuggest
	if configure != nil {
		configure(rv)
	}
	done := make(chan result, 16)
	pool := bot.NewPool(func(ctx context.Context, job bot.Job) error {
		err := rv.Run(ctx, job)
		done <- result{job.DeliveryID, err}
		return err
	}, bot.PoolOptions{Workers: 1, QueueSize: 8})
	pool.Start()
	srv := bot.NewServer(pool, nil, nil)
	srv.SetReady(true)
	srv.Handle(http.MethodPost, "/webhooks/gitlab", &bot.Webhook{Intake: gitlab.Intake{API: host}, Secret: []byte(e2eSecret), Queue: pool})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pool.Shutdown(ctx)
	})
	return &e2e{gl: fake, srv: hs, done: done}
}

// deliver posts a Merge Request Hook and waits for its review, whose error
// it returns.
func (e *e2e) deliver(t *testing.T, payload []byte, id string) error {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/webhooks/gitlab", bytes.NewReader(payload))
	req.Header.Set("X-Gitlab-Token", e2eSecret)
	req.Header.Set("X-Gitlab-Event", "Merge Request Hook")
	req.Header.Set("Idempotency-Key", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("delivery %s answered %d, want 202", id, resp.StatusCode)
	}
	select {
	case got := <-e.done:
		if got.delivery != "gitlab:"+id {
			t.Fatalf("finished %s, want gitlab:%s", got.delivery, id)
		}
		return got.err
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatalf("review of %s did not finish", id)
	}
	return nil
}

// payload returns p with the push fields set.
func payload(t *testing.T, p map[string]any, action, oldrev, head string) []byte {
	t.Helper()
	oa := p["object_attributes"].(map[string]any)
	oa["action"] = action
	if oldrev == "" {
		delete(oa, "oldrev")
	} else {
		oa["oldrev"] = oldrev
	}
	oa["last_commit"] = map[string]any{"id": head}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func loadPayload(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("payload %s not available: %v", path, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEndToEndTwoPushes(t *testing.T) {
	for _, tc := range []struct{ name, path string }{
		{"synthetic", "../../fixtures/gitlab/merge_request.update.json"},
		{"gitlab-docs", "../../../shared/payloads/gitlab/merge_request.open.gitlab-docs.json"},
		{"client-go-testdata", "../../../shared/payloads/gitlab/merge_request.client-go-testdata.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := loadPayload(t, tc.path)
			project := p["project"].(map[string]any)
			pid := int64(project["id"].(float64))
			iid := int(p["object_attributes"].(map[string]any)["iid"].(float64))
			e := newE2E(t, pid, project["path_with_namespace"].(string))
			fake := e.gl

			// The base switches the rule on; the push would switch it off.
			// It keeps only that rule on, so the test can state the exact review.
			base := fake.Commit(pid, map[string]string{".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared"), "README.md": "# app\n"})
			head1 := "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
			fake.CommitAs(pid, head1, map[string]string{
				".prodready.yaml": "rules:\n  probe-named-port-undeclared: false\n",
				"README.md":       "# app\n", "deploy/web.yaml": webV1,
			})
			fake.Push(pid, iid, base, head1, 1) // diff_refs arrive after one GET
			if err := e.deliver(t, payload(t, p, "open", "", head1), "push-1"); err != nil {
				t.Fatalf("push 1: %v", err)
			}

			bots := func() (inline, notes []fakegitlab.Discussion) {
				for _, d := range fake.Discussions(pid, iid) {
					if d.Notes[0].Author.ID != fake.User.ID {
						continue
					}
					if d.Notes[0].Position != nil {
						inline = append(inline, d)
					} else {
						notes = append(notes, d)
					}
				}
				return
			}
			inline, notes := bots()
			if len(inline) != 2 || len(notes) != 1 {
				t.Fatalf("after push 1: %d inline discussions and %d notes, want 2 and 1 (the config at base enables the rule)", len(inline), len(notes))
			}
			for i, line := range []int{19, 27} {
				n := inline[i].Notes[0]
				pos := n.Position
				if pos.NewPath != "deploy/web.yaml" || *pos.NewLine != line || pos.LineRange == nil || *pos.LineRange.End.NewLine != line+1 ||
					pos.HeadSHA != head1 || pos.BaseSHA != base {
					t.Errorf("discussion %d position = %+v, want lines %d-%d of deploy/web.yaml at %s", i, pos, line, line+1, head1)
				}
				if !strings.Contains(n.Body, "```suggestion:-0+1\n") || !strings.Contains(n.Body, "port: 8080") || !strings.Contains(n.Body, "<!-- prodready:fp=") {
					t.Errorf("discussion %d body lacks the suggestion:-0+1 block or the marker:\n%s", i, n.Body)
				}
			}
			if !strings.Contains(notes[0].Notes[0].Body, "<!-- prodready:summary -->") {
				t.Errorf("summary note lacks its marker:\n%s", notes[0].Notes[0].Body)
			}
			for _, c := range fake.CallsTo("GET", "/repository/files/.prodready.yaml/raw") {
				if c.Query.Get("ref") != base {
					t.Errorf("config read at %q, want the base %s", c.Query.Get("ref"), base)
				}
			}
			st := fake.Statuses()
			if len(st) != 2 || st[0].State != "pending" || st[1].State != "failed" || st[1].SHA != head1 || !strings.Contains(st[1].Description, "2 new errors") {
				t.Errorf("statuses after push 1 = %+v, want pending then failed with \"2 errors\"", st)
			}

			// Push 2 fixes the first probe.
			head2 := "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2"
			fake.CommitAs(pid, head2, map[string]string{".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared"), "README.md": "# app\n", "deploy/web.yaml": webV2})
			fake.Push(pid, iid, base, head2, 0)
			if err := e.deliver(t, payload(t, p, "update", head1, head2), "push-2"); err != nil {
				t.Fatalf("push 2: %v", err)
			}
			// A redelivery of push 2 runs nothing.
			posts := len(fake.CallsTo("POST", "/discussions"))
			req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/webhooks/gitlab", bytes.NewReader(payload(t, p, "update", head1, head2)))
			req.Header.Set("X-Gitlab-Token", e2eSecret)
			req.Header.Set("X-Gitlab-Event", "Merge Request Hook")
			req.Header.Set("Idempotency-Key", "push-2")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("redelivery answered %d, want 200", resp.StatusCode)
			}

			inline, notes = bots()
			if len(inline) != 2 || len(notes) != 1 || len(fake.CallsTo("POST", "/discussions")) != posts {
				t.Fatalf("after push 2: %d inline discussions, %d notes; want still 2 and 1 (no duplicates)", len(inline), len(notes))
			}
			if !inline[0].Notes[0].Resolved || inline[1].Notes[0].Resolved {
				t.Errorf("resolved: fixed=%v remaining=%v; want the fixed one resolved only", inline[0].Notes[0].Resolved, inline[1].Notes[0].Resolved)
			}
			if n := len(fake.CallsTo("PUT", "/notes/")); n != 1 {
				t.Errorf("summary edited %d times, want once in place", n)
			}
			st = fake.Statuses()
			last := st[len(st)-1]
			if last.SHA != head2 || last.State != "failed" || !strings.Contains(last.Description, "1 new error") {
				t.Errorf("last status = %+v, want failed on %s with \"1 error\"", last, head2)
			}
		})
	}
}

func TestEndToEndFailureEndsTheStatusFailed(t *testing.T) {
	p := loadPayload(t, filepath.Join("..", "..", "fixtures", "gitlab", "merge_request.update.json"))
	e := newE2E(t, 7, "group/sub/project")
	fake := e.gl
	base := fake.Commit(7, map[string]string{"README.md": "# app\n"})
	head := fake.Commit(7, map[string]string{"README.md": "# app\n", "deploy/web.yaml": webV1})
	fake.Push(7, 1, base, head, 0)
	fake.Fail("GET", "/projects/7/repository/tree", http.StatusForbidden, 1)
	if err := e.deliver(t, payload(t, p, "update", "1111111111111111111111111111111111111111", head), "fail-1"); err == nil {
		t.Error("a review whose tree listing is refused succeeded")
	}
	st := fake.Statuses()
	last := st[len(st)-1]
	if last.State != "failed" || !strings.Contains(last.Description, "403") {
		t.Errorf("statuses = %+v, want the last failed, saying why (403)", st)
	}
}
