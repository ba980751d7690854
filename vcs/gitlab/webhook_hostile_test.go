package gitlab_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prodready/prodready/internal/testconfig"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/vcs/gitlab"
)

type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// hostileServer is the real server with the GitLab route, its pool not
// started (a queued job stays visible as depth), logging to logs.
func hostileServer(t *testing.T) (*bot.Server, *bot.Pool, *lockedLog) {
	t.Helper()
	logs := &lockedLog{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	pool := bot.NewPool(func(context.Context, bot.Job) error { return nil }, bot.PoolOptions{Workers: 1, QueueSize: 8, Logger: logger})
	srv := bot.NewServer(pool, nil, logger)
	wh := &bot.Webhook{Intake: gitlab.Intake{}, Secret: []byte(e2eSecret), Queue: pool, Logger: logger}
	srv.Handle(http.MethodPost, "/webhooks/gitlab", wh)
	return srv, pool, logs
}

func post(t *testing.T, url, token, event string, body []byte, hdr ...string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if token != "" {
		req.Header.Set("X-Gitlab-Token", token)
	}
	req.Header.Set("X-Gitlab-Event", event)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestHostileDeliveries: wrong, missing, truncated and padded tokens are
// 401; the token in the URL instead of the header is 401; over 25 MiB is
// 413; other events are 200 and queue nothing; the logs record the
// refusals without the token.
func TestHostileDeliveries(t *testing.T) {
	srv, pool, logs := hostileServer(t)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	p := loadPayload(t, filepath.Join("..", "..", "fixtures", "gitlab", "merge_request.update.json"))
	body := payload(t, p, "open", "", "cccccccccccccccccccccccccccccccccccccccc")
	url := hs.URL + "/webhooks/gitlab"
	for _, tc := range []struct {
		name, url, token, event string
		body                    []byte
		want                    int
	}{
		{"wrong token", url, "guess", "Merge Request Hook", body, http.StatusUnauthorized},
		{"missing token", url, "", "Merge Request Hook", body, http.StatusUnauthorized},
		{"truncated token", url, e2eSecret[:len(e2eSecret)-1], "Merge Request Hook", body, http.StatusUnauthorized},
		{"token with a suffix", url, e2eSecret + "x", "Merge Request Hook", body, http.StatusUnauthorized},
		{"token in the query", url + "?token=" + e2eSecret, "", "Merge Request Hook", body, http.StatusUnauthorized},
		{"over 25 MiB", url, e2eSecret, "Merge Request Hook", bytes.Repeat([]byte(" "), bot.MaxWebhookBody+1), http.StatusRequestEntityTooLarge},
		{"unknown event", url, e2eSecret, "Pipeline Hook", body, http.StatusOK},
		{"event not UTF-8", url, e2eSecret, "Merge \xff Hook", body, http.StatusOK},
	} {
		if code := post(t, tc.url, tc.token, tc.event, tc.body); code != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, code, tc.want)
		}
	}
	if d := pool.Depth(); d != 0 {
		t.Errorf("%d reviews queued", d)
	}
	l := logs.String()
	if strings.Contains(l, e2eSecret) || strings.Contains(l, e2eSecret[:len(e2eSecret)-1]) {
		t.Errorf("the token is in the logs:\n%s", l)
	}
	if !strings.Contains(l, `"outcome":"bad_signature"`) || !strings.Contains(l, "invalid X-Gitlab-Token") {
		t.Errorf("refusals not logged:\n%s", l)
	}
}

// TestReplayOfCompletedDelivery: a delivery sent again after its review
// completed is answered 200 and not reviewed again.
func TestReplayOfCompletedDelivery(t *testing.T) {
	p := loadPayload(t, filepath.Join("..", "..", "fixtures", "gitlab", "merge_request.update.json"))
	e := newE2E(t, 7, "group/sub/project")
	base := e.gl.Commit(7, map[string]string{"README.md": "# app\n"})
	head := e.gl.Commit(7, map[string]string{"README.md": "# app\n", "deploy/web.yaml": webV1})
	e.gl.Push(7, 1, base, head, 0)
	body := payload(t, p, "open", "", head)
	if err := e.deliver(t, body, "once"); err != nil {
		t.Fatal(err)
	}
	calls := len(e.gl.Calls())
	for i := 0; i < 3; i++ {
		if code := post(t, e.srv.URL+"/webhooks/gitlab", e2eSecret, "Merge Request Hook", body, "Idempotency-Key", "once"); code != http.StatusOK {
			t.Errorf("replay %d: %d, want 200", i, code)
		}
	}
	select {
	case r := <-e.done:
		t.Fatalf("a replay was reviewed: %v", r)
	case <-time.After(50 * time.Millisecond):
	}
	if n := len(e.gl.Calls()); n != calls {
		t.Errorf("GitLab called %d more times", n-calls)
	}
}

// TestUnknownProjectFailsCleanly: a delivery (valid token) naming a
// project the token cannot see is accepted, then its review fails at the
// first call: no status, no discussion anywhere.
func TestUnknownProjectFailsCleanly(t *testing.T) {
	p := loadPayload(t, filepath.Join("..", "..", "fixtures", "gitlab", "merge_request.update.json"))
	p["project"].(map[string]any)["id"] = 999
	p["project"].(map[string]any)["path_with_namespace"] = "victim/private"
	e := newE2E(t, 7, "group/sub/project")
	err := e.deliver(t, payload(t, p, "open", "", "dddddddddddddddddddddddddddddddddddddddd"), "foreign-1")
	if err == nil {
		t.Fatal("review of an unknown project succeeded")
	}
	if st := e.gl.Statuses(); len(st) != 0 {
		t.Errorf("statuses %+v", st)
	}
	for _, c := range e.gl.Calls() {
		if c.Method != http.MethodGet && c.Status < 300 {
			t.Errorf("wrote to GitLab: %+v", c)
		}
	}
}

// TestSlowLorisIsCut opens a raw connection to the GitLab route that sends
// its headers one byte at a time: the server closes it after the header
// timeout and still serves others.
func TestSlowLorisIsCut(t *testing.T) {
	srv, _, _ := hostileServer(t)
	srv.Timeouts = bot.Timeouts{ReadHeader: 300 * time.Millisecond, Read: 600 * time.Millisecond, Write: 600 * time.Millisecond, Idle: 600 * time.Millisecond}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	defer func() { l.Close(); <-errc }()
	// From before the dial: the server's header timeout runs from when it
	// accepts, which may come before Dial returns here.
	start := time.Now()
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /webhooks/gitlab HTTP/1.1\r\nHost: x\r\nX-Gitlab-Token: ")
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := conn.Write([]byte("a")); err != nil {
				return
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang guard
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the slow connection stayed open %s", time.Since(start))
	}
	if d := time.Since(start); d < srv.Timeouts.ReadHeader {
		t.Errorf("closed after %s, before the header timeout", d)
	}
	resp, err := http.Get("http://" + l.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestForkMergeRequestSameRules: a merge request from a fork (source
// project differs from the target) whose head switches the rule off is
// reviewed with the target's base config, like any other.
func TestForkMergeRequestSameRules(t *testing.T) {
	p := loadPayload(t, filepath.Join("..", "..", "fixtures", "gitlab", "merge_request.update.json"))
	oa := p["object_attributes"].(map[string]any)
	oa["source_project_id"], oa["target_project_id"] = 666, 7
	e := newE2E(t, 7, "group/sub/project")
	base := e.gl.Commit(7, map[string]string{".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared"), "README.md": "# app\n"})
	head := e.gl.Commit(7, map[string]string{".prodready.yaml": "rules:\n  probe-named-port-undeclared: false\n", "README.md": "# app\n", "deploy/web.yaml": webV1})
	e.gl.Push(7, 1, base, head, 0)
	if err := e.deliver(t, payload(t, p, "open", "", head), "fork-1"); err != nil {
		t.Fatal(err)
	}
	st := e.gl.Statuses()
	if len(st) == 0 || st[len(st)-1].State != "failed" || !strings.Contains(st[len(st)-1].Description, "2 new errors") {
		t.Errorf("statuses %+v, want failed with 2 errors (the fork's config ignored)", st)
	}
}
