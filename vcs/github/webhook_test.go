package github_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	ghv "github.com/prodready/prodready/vcs/github"
)

func TestVerifySignature(t *testing.T) {
	body := []byte(`{"a":1}`)
	good := ghv.Sign([]byte("s3cret"), body)
	for _, tc := range []struct {
		name   string
		secret string
		header string
		want   bool
	}{
		{"good", "s3cret", good, true},
		{"other secret", "other", good, false},
		{"no secret configured", "", good, false},
		{"no prefix", "s3cret", strings.TrimPrefix(good, "sha256="), false},
		{"sha1", "s3cret", "sha1=" + strings.TrimPrefix(good, "sha256="), false},
		{"not hex", "s3cret", "sha256=zz", false},
		{"empty", "s3cret", "", false},
	} {
		if got := ghv.VerifySignature([]byte(tc.secret), body, tc.header); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		event, body string
		wantOK      bool
		wantName    string
	}{
		{"pull_request", `{"action":"closed","pull_request":{"number":1}}`, false, ""},
		// Asking for a reviewer brings no code: it starts no review.
		{"pull_request", `{"action":"review_requested","number":1,"pull_request":{"number":1,"head":{"sha":"h"},"base":{"sha":"b"}},"repository":{"name":"r","owner":{"login":"o"}},"installation":{"id":1}}`, false, ""},
		{"pull_request", `{"action":"edited","changes":{"title":{"from":"x"}},"number":1,"pull_request":{"number":1,"head":{"sha":"h"}},"repository":{"name":"r","owner":{"login":"o"}},"installation":{"id":1}}`, false, ""},
		{"pull_request", `{"action":"edited","changes":{"base":{"ref":{"from":"dev"}}},"number":1,"pull_request":{"number":1,"head":{"sha":"h"},"base":{"sha":"b"}},"repository":{"name":"r","owner":{"login":"o"}},"installation":{"id":1}}`, true, "pull_request.edited"},
		{"pull_request", `{"action":"synchronize","number":1,"pull_request":{"number":1,"head":{"sha":"h"}},"repository":{"name":"r","owner":{"login":"o"}}}`, false, ""}, // no installation
		{"push", `{}`, false, ""},
		{"check_suite", `{"action":"completed","check_suite":{}}`, false, ""},
		{"check_run", `{"action":"rerequested","check_run":{"head_sha":"h","pull_requests":[]},"repository":{"name":"r","owner":{"login":"o"}},"installation":{"id":1}}`, false, ""},
	} {
		ev, ok, err := ghv.Decode(tc.event, []byte(tc.body))
		name := ev.Name
		if err != nil || ok != tc.wantOK || name != tc.wantName {
			t.Errorf("%s %s: ok %v name %q err %v", tc.event, tc.body, ok, name, err)
		}
	}
	if _, _, err := ghv.Decode("pull_request", []byte("{")); err == nil {
		t.Error("bad JSON: want an error")
	}
}

func TestDecodeSharedCheckSuitePayload(t *testing.T) {
	data := readPayload(t, "check_suite_rerequested.payload.json")
	ev, ok, err := ghv.Decode("check_suite", data)
	if err != nil || !ok || ev.Name != "check_suite.rerequested" {
		t.Fatalf("ok %v name %q err %v", ok, ev.Name, err)
	}
	if !ev.Rerun {
		t.Error("a rerequested check suite is not marked a re-run: a head reviewed already would not be reviewed again")
	}
	if pr := ev.PR; pr.Repo != "Codertocat/Hello-World" || pr.Number != 2 || pr.HeadSHA != head1 || pr.BaseSHA != base || ev.Installation != 957387 {
		t.Errorf("pr = %+v", pr)
	}
}

func syntheticOpened(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "github", "pull_request_opened.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestWebhookRefusals(t *testing.T) {
	st := newStack(t, 1, false) // workers not started: nothing runs
	body := syntheticOpened(t)

	if code := st.deliverSigned(t, "pull_request", "x-1", body, ghv.Sign([]byte("wrong"), body)); code != http.StatusUnauthorized {
		t.Errorf("bad signature: %d, want 401", code)
	}
	if code := st.deliverSigned(t, "pull_request", "x-1", body, ""); code != http.StatusUnauthorized {
		t.Errorf("no signature: %d, want 401", code)
	}
	big := bytes.Repeat([]byte(" "), bot.MaxWebhookBody+1)
	if code := st.deliver(t, "pull_request", "x-2", big); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized: %d, want 413", code)
	}
	if code := st.deliver(t, "issues", "x-3", []byte(`{"action":"opened"}`)); code != http.StatusOK {
		t.Errorf("unhandled event: %d, want 200", code)
	}
	if code := st.deliver(t, "pull_request", "x-4", []byte(`{`)); code != http.StatusBadRequest {
		t.Errorf("bad JSON: %d, want 400", code)
	}
	if d := st.pool.Depth(); d != 0 {
		t.Fatalf("queue depth %d after refused deliveries, want 0", d)
	}
	if code := st.deliver(t, "pull_request", "x-5", body); code != http.StatusAccepted {
		t.Errorf("good delivery: %d, want 202", code)
	}
	if code := st.deliver(t, "pull_request", "x-5", body); code != http.StatusOK {
		t.Errorf("duplicate queued delivery: %d, want 200", code)
	}
	if code := st.deliver(t, "pull_request", "x-6", body); code != http.StatusServiceUnavailable {
		t.Errorf("full queue: %d, want 503", code)
	}
	if n := len(st.fake.Calls()); n != 0 {
		t.Errorf("GitHub was called %d times before any review ran", n)
	}
	// The accepted job is not dropped: it runs when the workers start.
	setupRepo(st.fake, "acme", "deploys", 7, "0000000000000000000000000000000000000000", "1111111111111111111111111111111111111111")
	st.pool.Start()
	<-st.done
	if n := len(st.fake.CheckRuns("acme", "deploys")); n != 1 {
		t.Errorf("check runs = %d, want 1", n)
	}
	if err := st.pool.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestHealthReadyMetrics(t *testing.T) {
	st := newStack(t, 4, true)
	get := func(path string) (int, string) {
		resp, err := http.Get(st.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("healthz %d", code)
	}
	if code, _ := get("/readyz"); code != http.StatusOK {
		t.Errorf("readyz %d", code)
	}
	st.deliver(t, "issues", "m-1", []byte(`{}`))
	code, m := get("/metrics")
	if code != http.StatusOK || !strings.Contains(m, `prodready_webhook_deliveries_total{event="issues",host="github",outcome="ignored"} 1`) || !strings.Contains(m, "prodready_queue_depth 0") {
		t.Errorf("metrics %d:\n%s", code, m)
	}
	if err := st.server.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if code, _ := get("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("readyz after shutdown %d, want 503", code)
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("healthz after shutdown %d, want 200 (liveness depends on nothing)", code)
	}
}

// TestWebhookSameIntakeAsGitLab: what bot.Webhook answers for every host,
// on GitHub's route: 405 to GET, 403 without a secret configured, and 401
// to an unsigned delivery before its body is read (even over 25 MiB).
func TestWebhookSameIntakeAsGitLab(t *testing.T) {
	send := func(secret, method, sig string, body []byte) int {
		wh := &bot.Webhook{Intake: ghv.Intake{HostFor: func(int64) (bot.Host, error) { return nil, nil }}, Secret: []byte(secret), Queue: &jobQueue{}}
		req := httptest.NewRequest(method, "/webhooks/github", bytes.NewReader(body))
		req.Header.Set("X-GitHub-Event", "pull_request")
		if sig != "" {
			req.Header.Set("X-Hub-Signature-256", sig)
		}
		rec := httptest.NewRecorder()
		wh.ServeHTTP(rec, req)
		return rec.Code
	}
	body := syntheticOpened(t)
	if code := send(testSecret, http.MethodGet, ghv.Sign([]byte(testSecret), body), body); code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", code)
	}
	if code := send("", http.MethodPost, ghv.Sign(nil, body), body); code != http.StatusForbidden {
		t.Errorf("no secret configured: %d, want 403", code)
	}
	if code := send(testSecret, http.MethodPost, "", bytes.Repeat([]byte(" "), bot.MaxWebhookBody+1)); code != http.StatusUnauthorized {
		t.Errorf("unsigned, over 25 MiB: %d, want 401", code)
	}
	if code := send(testSecret, http.MethodPost, ghv.Sign([]byte(testSecret), body), body); code != http.StatusAccepted {
		t.Errorf("signed: %d, want 202", code)
	}
}
