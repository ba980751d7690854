package gitlab

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks/checkstest"
)

const testSecret = "s3cret-webhook-token"

// recordingQueue is a bot.Enqueuer that keeps jobs and answers err.
type recordingQueue struct {
	mu   sync.Mutex
	jobs []bot.Job
	err  error
}

func (q *recordingQueue) Enqueue(j bot.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.jobs = append(q.jobs, j)
	return nil
}

func readPayload(t *testing.T, rel string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(checkstest.Root(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// withAttrs returns the payload with object_attributes fields replaced
// (nil deletes one).
func withAttrs(p map[string]any, attrs map[string]any) []byte {
	cp := map[string]any{}
	for k, v := range p {
		cp[k] = v
	}
	oa := map[string]any{}
	for k, v := range p["object_attributes"].(map[string]any) {
		oa[k] = v
	}
	for k, v := range attrs {
		if v == nil {
			delete(oa, k)
		} else {
			oa[k] = v
		}
	}
	cp["object_attributes"] = oa
	b, _ := json.Marshal(cp)
	return b
}

// newWebhook is the GitLab webhook route as serve registers it.
func newWebhook(secret []byte, host bot.Host, q bot.Enqueuer) *bot.Webhook {
	return &bot.Webhook{Intake: Intake{API: host}, Secret: secret, Queue: q}
}

func deliver(h http.Handler, token, event string, body []byte, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/webhooks/gitlab", bytes.NewReader(body))
	if token != "" {
		req.Header.Set("X-Gitlab-Token", token)
	}
	if event != "" {
		req.Header.Set("X-Gitlab-Event", event)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestWebhookStartsReviewsOnlyForNewCode(t *testing.T) {
	p := readPayload(t, "fixtures/gitlab/merge_request.update.json")
	for _, tc := range []struct {
		name  string
		attrs map[string]any
		event string
		code  int
		job   string // the job's Event, "" for none
	}{
		{"update with oldrev (a push)", nil, "Merge Request Hook", 202, "merge_request.update"},
		{"open", map[string]any{"action": "open", "oldrev": nil}, "Merge Request Hook", 202, "merge_request.open"},
		{"reopen", map[string]any{"action": "reopen", "oldrev": nil}, "Merge Request Hook", 202, "merge_request.reopen"},
		{"update without oldrev (title, labels)", map[string]any{"oldrev": nil}, "Merge Request Hook", 200, ""},
		{"close", map[string]any{"action": "close"}, "Merge Request Hook", 200, ""},
		{"merge", map[string]any{"action": "merge"}, "Merge Request Hook", 200, ""},
		{"approved", map[string]any{"action": "approved", "oldrev": nil}, "Merge Request Hook", 200, ""},
		{"push event", nil, "Push Hook", 200, ""},
		{"system hook merge request", nil, "System Hook", 202, "merge_request.update"},
		{"update of a merged MR", map[string]any{"state": "merged"}, "Merge Request Hook", 200, ""},
		{"reopen of a closed MR (state already opened)", map[string]any{"action": "reopen", "state": "opened", "oldrev": nil}, "Merge Request Hook", 202, "merge_request.reopen"},
		{"note event", nil, "Note Hook", 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &recordingQueue{}
			h := newWebhook([]byte(testSecret), nil, q)
			rec := deliver(h, testSecret, tc.event, withAttrs(p, tc.attrs), map[string]string{"Idempotency-Key": "k-1"})
			if rec.Code != tc.code {
				t.Errorf("status %d (%s), want %d", rec.Code, rec.Body, tc.code)
			}
			if tc.job == "" {
				if len(q.jobs) != 0 {
					t.Errorf("queued %+v, want nothing", q.jobs)
				}
				return
			}
			if len(q.jobs) != 1 || q.jobs[0].Event != tc.job {
				t.Fatalf("queued %+v, want one %s job", q.jobs, tc.job)
			}
		})
	}
}

func TestWebhookJobFromTheSyntheticPayload(t *testing.T) {
	q := &recordingQueue{}
	host := &Host{}
	h := newWebhook([]byte(testSecret), host, q)
	body := withAttrs(readPayload(t, "fixtures/gitlab/merge_request.update.json"), nil)
	rec := deliver(h, testSecret, "Merge Request Hook", body, map[string]string{"Idempotency-Key": "idem-1", "X-Gitlab-Event-UUID": "uuid-1"})
	if rec.Code != http.StatusAccepted || len(q.jobs) != 1 {
		t.Fatalf("status %d, jobs %d; want 202 and one job", rec.Code, len(q.jobs))
	}
	j := q.jobs[0]
	want := bot.PullRequest{Host: "gitlab", Repo: "group/sub/project", RepoID: 7, Number: 1,
		HeadSHA: "2222222222222222222222222222222222222222", BaseRef: "main", HeadRef: "feature",
		URL: "https://gitlab.example.com/group/sub/project/-/merge_requests/1"}
	if j.PR != want {
		t.Errorf("PR = %+v\nwant %+v", j.PR, want)
	}
	if j.DeliveryID != "gitlab:idem-1" || j.Host != bot.Host(host) {
		t.Errorf("delivery %q host %v; want gitlab:idem-1 (Idempotency-Key first) and the handler's host", j.DeliveryID, j.Host)
	}
	rec = deliver(h, testSecret, "Merge Request Hook", body, map[string]string{"X-Gitlab-Event-UUID": "uuid-2"})
	if rec.Code != http.StatusAccepted || q.jobs[1].DeliveryID != "gitlab:uuid-2" {
		t.Errorf("without Idempotency-Key: delivery %q, want gitlab:uuid-2", q.jobs[1].DeliveryID)
	}
}

func TestWebhookSharedPayloads(t *testing.T) {
	dir := filepath.Join(checkstest.Root(t), "..", "shared", "payloads", "gitlab")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real GitLab payloads not available (%s): %v", dir, err)
	}
	for _, name := range []string{"merge_request.open.gitlab-docs.json", "merge_request.client-go-testdata.json"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Skipf("payload %s not available: %v", name, err)
			}
			q := &recordingQueue{}
			rec := deliver(newWebhook([]byte(testSecret), nil, q), testSecret, "Merge Request Hook", b, nil)
			if rec.Code != http.StatusAccepted || len(q.jobs) != 1 {
				t.Fatalf("status %d (%s), %d jobs; want 202 and one job for an open action", rec.Code, rec.Body, len(q.jobs))
			}
			pr := q.jobs[0].PR
			if pr.RepoID != 1 || pr.Repo != "gitlabhq/gitlab-test" || pr.Number != 1 ||
				pr.HeadSHA != "da1560886d4f094c3e6c9ef40349f7d38b5d27d7" || pr.BaseRef != "master" || pr.HeadRef != "ms-viewport" {
				t.Errorf("PR from %s = %+v", name, pr)
			}
			// Without a delivery id, the same push is one review.
			if q.jobs[0].DeliveryID != "gitlab:1!1@da1560886d4f094c3e6c9ef40349f7d38b5d27d7" {
				t.Errorf("delivery id %q", q.jobs[0].DeliveryID)
			}
		})
	}
}

func TestWebhookRefusals(t *testing.T) {
	body := withAttrs(readPayload(t, "fixtures/gitlab/merge_request.update.json"), nil)
	for _, tc := range []struct {
		name   string
		secret string
		token  string
		body   []byte
		qerr   error
		code   int
	}{
		{"wrong token", testSecret, "guess-" + testSecret, body, nil, 401},
		{"no token", testSecret, "", body, nil, 401},
		{"token prefix", testSecret, testSecret[:5], body, nil, 401},
		{"no secret configured", "", "", body, nil, 403},
		{"no secret configured, any token", "", "anything", body, nil, 403},
		{"malformed JSON", testSecret, testSecret, []byte("{"), nil, 400},
		{"not a merge request", testSecret, testSecret, []byte(`{"object_kind":"push"}`), nil, 400},
		{"wrong types", testSecret, testSecret, []byte(`{"object_kind":"merge_request","project":{"id":"seven"}}`), nil, 400},
		{"duplicate delivery", testSecret, testSecret, body, bot.ErrDuplicate, 200},
		{"queue full", testSecret, testSecret, body, bot.ErrQueueFull, 503},
		{"shutting down", testSecret, testSecret, body, bot.ErrShuttingDown, 503},
		{"queue broken", testSecret, testSecret, body, errors.New("boom"), 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &recordingQueue{err: tc.qerr}
			rec := deliver(newWebhook([]byte(tc.secret), nil, q), tc.token, "Merge Request Hook", tc.body, nil)
			if rec.Code != tc.code {
				t.Errorf("status %d (%s), want %d", rec.Code, rec.Body, tc.code)
			}
			if tc.code >= 400 && tc.code < 500 && len(q.jobs) != 0 {
				t.Errorf("refused delivery queued %d jobs", len(q.jobs))
			}
			if tc.token != "" && strings.Contains(rec.Body.String(), tc.token) {
				t.Errorf("the answer echoes the token: %q", rec.Body)
			}
		})
	}
}

func TestWebhookSystemHookOfAnotherKindIsIgnored(t *testing.T) {
	q := &recordingQueue{}
	rec := deliver(newWebhook([]byte(testSecret), nil, q), testSecret, "System Hook", []byte(`{"object_kind":"push","event_name":"push"}`), nil)
	if rec.Code != http.StatusOK || len(q.jobs) != 0 {
		t.Errorf("system push hook: %d with %d jobs, want 200 and none", rec.Code, len(q.jobs))
	}
}

func TestWebhookBodyLimit(t *testing.T) {
	q := &recordingQueue{}
	big := bytes.Repeat([]byte(" "), bot.MaxWebhookBody+1)
	rec := deliver(newWebhook([]byte(testSecret), nil, q), testSecret, "Merge Request Hook", big, nil)
	if rec.Code != http.StatusRequestEntityTooLarge || len(q.jobs) != 0 {
		t.Errorf("status %d with %d jobs, want 413 and none", rec.Code, len(q.jobs))
	}
	req := httptest.NewRequest(http.MethodGet, "/webhooks/gitlab", nil)
	rec = httptest.NewRecorder()
	newWebhook([]byte(testSecret), nil, q).ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET answered %d, want 405", rec.Code)
	}
}

// counter returns the value of the counter series that has these labels
// (among others), read from what /metrics would serve.
func counter(t *testing.T, m *bot.Metrics, name string, labels map[string]string) float64 {
	t.Helper()
	var out strings.Builder
	m.WritePrometheus(&out)
next:
	for _, line := range strings.Split(out.String(), "\n") {
		rest, ok := strings.CutPrefix(line, name+"{")
		if !ok {
			continue
		}
		set, value, ok := strings.Cut(rest, "} ")
		if !ok {
			t.Fatalf("a series line without a value: %q", line)
		}
		for k, v := range labels {
			if !strings.Contains(","+set+",", ","+k+"="+strconv.Quote(v)+",") {
				continue next
			}
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("series %q: %v", line, err)
		}
		return f
	}
	return 0
}

func TestWebhookAndAPIMetrics(t *testing.T) {
	m := bot.NewMetrics()
	wh := newWebhook([]byte(testSecret), nil, &recordingQueue{})
	wh.Metrics = m
	body := withAttrs(readPayload(t, "fixtures/gitlab/merge_request.update.json"), nil)
	deliver(wh, "wrong", "Merge Request Hook", body, nil)
	deliver(wh, testSecret, "Merge Request Hook", body, nil)
	deliver(wh, testSecret, "Some Made-Up Hook", body, nil)
	for _, tc := range []struct {
		event, outcome string
	}{{"unverified", "bad_signature"}, {"merge_request", "queued"}, {"other", "ignored"}} {
		if v := counter(t, m, "prodready_webhook_deliveries_total", map[string]string{"host": "gitlab", "event": tc.event, "outcome": tc.outcome}); v != 1 {
			t.Errorf("deliveries{%s,%s} = %v, want 1", tc.event, tc.outcome, v)
		}
	}

	s, pr := setup(t, map[string]string{"a.yaml": "a: 1\n"}, map[string]string{"a.yaml": "a: 2\n"})
	h, err := NewHost(Options{BaseURL: s.URL, Token: s.Token, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ReadFile(t.Context(), pr, pr.HeadSHA, "a.yaml"); err != nil {
		t.Fatal(err)
	}
	if v := counter(t, m, "prodready_api_calls_total", map[string]string{"host": "gitlab", "endpoint": "GET /projects/{id}/repository/files/{path}/raw", "status": "200"}); v != 1 {
		t.Errorf("api calls = %v, want 1", v)
	}
}
