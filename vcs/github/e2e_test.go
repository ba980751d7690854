package github_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prodready/prodready/internal/testconfig"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/fakegithub"
	ghv "github.com/prodready/prodready/vcs/github"
)

const (
	testAppID  = 4242
	testSecret = "test-webhook-secret"
)

var (
	keyOnce sync.Once
	keyPEM  []byte
	pubKey  *rsa.PublicKey
)

func testKey(t *testing.T) ([]byte, *rsa.PublicKey) {
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
		pubKey = &k.PublicKey
	})
	return keyPEM, pubKey
}

// stack is the real server (echo handler, webhook, pool, reviewer, GitHub
// host) wired to a fake GitHub.
type stack struct {
	fake    *fakegithub.Server
	srv     *httptest.Server
	pool    *bot.Pool
	app     *ghv.App
	done    chan string // delivery ids as their reviews end
	sleeps  []time.Duration
	mu      sync.Mutex
	logs    *bytes.Buffer
	server  *bot.Server
	started chan struct{} // closed by a test's hook
}

type syncBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func newStack(t *testing.T, queueSize int, start bool) *stack {
	t.Helper()
	return newStackWith(t, queueSize, start, nil)
}

// newStackWith is newStack with the reviewer set up by configure (when not
// nil) before the pool starts.
func newStackWith(t *testing.T, queueSize int, start bool, configure func(*bot.Reviewer)) *stack {
	t.Helper()
	keyPEM, pub := testKey(t)
	st := &stack{fake: fakegithub.New(testAppID, pub), done: make(chan string, 100), logs: &bytes.Buffer{}}
	t.Cleanup(st.fake.Close)
	logger := slog.New(slog.NewJSONHandler(&syncBuffer{b: st.logs}, nil))
	metrics := bot.NewMetrics()
	app, err := ghv.NewApp(ghv.AppConfig{AppID: testAppID, PrivateKey: keyPEM, BaseURL: st.fake.URL, Metrics: metrics, BotLogin: fakegithub.BotLogin})
	if err != nil {
		t.Fatal(err)
	}
	app.Retry().Sleep = func(ctx context.Context, d time.Duration) error {
		st.mu.Lock()
		st.sleeps = append(st.sleeps, d)
		st.mu.Unlock()
		return nil
	}
	st.app = app
	rv := bot.NewReviewer(bot.NewLRUCache(1<<20), logger)
	rv.Suggest = testSuggest
	if configure != nil {
		configure(rv)
	}
	st.pool = bot.NewPool(func(ctx context.Context, job bot.Job) error {
		err := rv.Run(ctx, job)
		st.done <- job.DeliveryID
		return err
	}, bot.PoolOptions{Workers: 2, QueueSize: queueSize, Logger: logger, Metrics: metrics})
	if start {
		st.pool.Start()
	}
	st.server = bot.NewServer(st.pool, metrics, logger)
	st.server.Handle(http.MethodPost, "/webhooks/github", &bot.Webhook{
		Intake: ghv.Intake{HostFor: app.Host}, Secret: []byte(testSecret), Queue: st.pool, Metrics: metrics, Logger: logger,
	})
	st.server.SetReady(true)
	st.srv = httptest.NewServer(st.server.Handler())
	t.Cleanup(st.srv.Close)
	return st
}

func (st *stack) deliver(t *testing.T, event, delivery string, body []byte) int {
	t.Helper()
	return st.deliverSigned(t, event, delivery, body, ghv.Sign([]byte(testSecret), body))
}

func (st *stack) deliverSigned(t *testing.T, event, delivery string, body []byte, sig string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, st.srv.URL+"/webhooks/github", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", sig)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// testSuggest stands in for checks/fix: a named probe port becomes 8080; for
// a startupProbe the suggestion spans the probe's three lines.
func testSuggest(path string, src []byte, fs []checks.Finding) ([]bot.Suggestion, error) {
	lines := strings.Split(string(src), "\n")
	var out []bot.Suggestion
	for i, f := range fs {
		if f.RuleID != "probe-named-port-undeclared" {
			continue
		}
		l := lines[f.Line-1]
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		if strings.Contains(f.Path, "startupProbe") {
			out = append(out, bot.Suggestion{StartLine: f.Line - 2, EndLine: f.Line, Findings: []int{i},
				Text: lines[f.Line-3] + "\n" + lines[f.Line-2] + "\n" + indent + "port: 8080\n"})
			continue
		}
		out = append(out, bot.Suggestion{StartLine: f.Line, EndLine: f.Line, Text: indent + "port: 8080\n", Findings: []int{i}})
	}
	return out, nil
}

// deployment renders the test Deployment with the three probe ports.
func deployment(ready, live, startup string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
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
          readinessProbe:
            httpGet:
              path: /ready
              port: %s
          livenessProbe:
            tcpSocket:
              port: %s
          startupProbe:
            tcpSocket:
              port: %s
`, ready, live, startup)
}

// untouched has a finding but is not changed by the pull request.
var untouched = strings.Replace(deployment("http", "8080", "nope"), "name: web\nspec", "name: other\nspec", 1)

const (
	base  = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
	head1 = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	head2 = "2222222222222222222222222222222222222222"
)

func setupRepo(fake *fakegithub.Server, owner, repo string, number int, baseSHA, headSHA string) {
	fake.AddCommit(owner, repo, baseSHA, map[string]string{
		"deploy/app.yaml":   deployment("ready", "8080", "8080"),
		"deploy/other.yaml": untouched,
		"README.md":         "hello\n",
		// The repository keeps one rule on, so the test can state the exact
		// review; the full catalog is exercised by the checks tests.
		".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared"),
	})
	fake.AddCommit(owner, repo, headSHA, map[string]string{
		"deploy/app.yaml":   deployment("ready", "metrics", "boot"),
		"deploy/other.yaml": untouched,
		"README.md":         "hello\n",
		// The pull request tries to switch the rule off: config is read at base.
		".prodready.yaml": "rules:\n  probe-named-port-undeclared: false\n",
	})
	fake.SetPR(owner, repo, number, baseSHA, headSHA)
}

func readPayload(t *testing.T, name string) []byte {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "payloads", "github", name)
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		t.Skipf("shared payload %s absent (it lives in ../shared/payloads next to the repository); the synthetic fixture test still runs", p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// withHead rewrites a pull_request payload's action and head SHA: the second
// push of the end-to-end test.
func withHead(t *testing.T, payload []byte, action, sha string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	m["action"] = action
	m["after"] = sha
	m["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = sha
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wantComment(path string, start, line int, fs ...string) fakegithub.Comment {
	return fakegithub.Comment{Path: path, StartLine: start, Line: line, Body: strings.Join(fs, "")}
}

// TestEndToEndSharedPayloads sends GitHub's own pull_request payloads into
// the running server and checks what the fake GitHub received.
func TestEndToEndSharedPayloads(t *testing.T) {
	opened := readPayload(t, "pull_request_opened.payload.json")
	runEndToEnd(t, opened, "Codertocat", "Hello-World", 2, base, head1)
}

// TestEndToEndSyntheticPayload is the same with the payload in fixtures/.
func TestEndToEndSyntheticPayload(t *testing.T) {
	opened, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "github", "pull_request_opened.json"))
	if err != nil {
		t.Fatal(err)
	}
	runEndToEnd(t, opened, "acme", "deploys", 7, "0000000000000000000000000000000000000000", "1111111111111111111111111111111111111111")
}

func runEndToEnd(t *testing.T, opened []byte, owner, repo string, number int, baseSHA, headSHA string) {
	st := newStack(t, 10, true)
	st.fake.MaxPerPage = 1 // every list paginates
	setupRepo(st.fake, owner, repo, number, baseSHA, headSHA)

	if code := st.deliver(t, "pull_request", "d-1", opened); code != http.StatusAccepted {
		t.Fatalf("opened: status %d", code)
	}
	<-st.done

	runs := st.fake.CheckRuns(owner, repo)
	if len(runs) != 1 {
		t.Fatalf("check runs = %d, want 1", len(runs))
	}
	run := runs[0]
	if run.HeadSHA != headSHA || run.Status != "completed" || run.Conclusion != "failure" || run.Title != "2 new errors" || run.Name != "prodready" {
		t.Errorf("check run = %+v", run)
	}
	// The readiness probe's error is at base already: counted and folded,
	// never an annotation.
	if len(run.Annotations) != 0 {
		t.Errorf("annotations %+v, want none (the new findings are in threads)", run.Annotations)
	}
	for _, s := range []string{"**2 new** · **0 fixed** · **1 pre-existing**", "deploy/app.yaml#L24) :speech_balloon:", "deploy/app.yaml#L27) :speech_balloon:", "<details><summary>1 finding already at base", "deploy/app.yaml#L21)", ".prodready.yaml"} {
		if !strings.Contains(run.Summary, s) {
			t.Errorf("summary lacks %q:\n%s", s, run.Summary)
		}
	}
	if strings.Contains(run.Summary, "other.yaml") {
		t.Errorf("summary reports an unchanged file:\n%s", run.Summary)
	}

	reviews := st.fake.Reviews(owner, repo)
	if len(reviews) != 1 {
		t.Fatalf("reviews = %d, want 1", len(reviews))
	}
	rev := reviews[0]
	// One line of text, then the hidden marker naming the head.
	text, marker, found := strings.Cut(rev.Body, "\n\n<!-- prodready:review="+headSHA+"/")
	if rev.Event != "COMMENT" || rev.CommitID != headSHA || !strings.Contains(text, "2 new errors") || strings.Contains(text, "\n") || !found || !strings.HasSuffix(marker, " -->") {
		t.Errorf("review = %+v", rev)
	}
	liveMsg := `livenessProbe of container "web" targets port "metrics", which the container does not declare: the probe always fails (declare it under ports, or use the port number)`
	startMsg := `startupProbe of container "web" targets port "boot", which the container does not declare: the probe always fails (declare it under ports, or use the port number)`
	live := checks.Finding{RuleID: "probe-named-port-undeclared", File: "deploy/app.yaml", Object: checks.ObjectRef{Group: "apps", Kind: "Deployment", Name: "web"}, IdentityPath: "spec.template.spec.containers[name=web].livenessProbe.tcpSocket.port", Message: liveMsg}
	start := live
	start.IdentityPath, start.Message = "spec.template.spec.containers[name=web].startupProbe.tcpSocket.port", startMsg
	var got []fakegithub.Comment
	for _, c := range rev.Comments {
		got = append(got, fakegithub.Comment{Path: c.Path, StartLine: c.StartLine, Line: c.Line, Body: c.Body})
	}
	// One thread per error, anchored at its lines, first line severity
	// and rule, the suggestion, the rest folded, the markers last.
	wantThreads := []struct {
		start, line int
		first, sug  string
		f           checks.Finding
	}{
		{0, 24, ":x: **error** `probe-named-port-undeclared`: " + liveMsg, "```suggestion\n              port: 8080\n```", live},
		{25, 27, ":x: **error** `probe-named-port-undeclared`: " + startMsg, "```suggestion\n          startupProbe:\n            tcpSocket:\n              port: 8080\n```", start},
	}
	if len(got) != len(wantThreads) {
		t.Fatalf("threads %+v, want %d", got, len(wantThreads))
	}
	for i, w := range wantThreads {
		c := got[i]
		first, _, _ := strings.Cut(c.Body, "\n")
		if c.Path != "deploy/app.yaml" || c.StartLine != w.start || c.Line != w.line || first != w.first || !strings.Contains(c.Body, w.sug) ||
			!strings.Contains(c.Body, "<details>") || !strings.Contains(c.Body, bot.FingerprintMarker(w.f.Fingerprint())) || bot.ThreadKey(c.Body) != w.f.Fingerprint() {
			t.Errorf("thread %d:\n%+v\nwant lines %d-%d, first line %q, %s", i, c, w.start, w.line, w.first, w.sug)
		}
	}
	for _, c := range st.fake.Calls() {
		if c.Status >= 400 && !(c.Status == http.StatusNotFound && strings.HasSuffix(c.Path, "/contents/.prodready.yaml")) {
			t.Errorf("call refused: %s %s", c, c.Body)
		}
	}
	logs := st.logs.String()
	if !strings.Contains(logs, `"delivery":"d-1"`) || !strings.Contains(logs, fmt.Sprintf(`"pr":%d`, number)) || strings.Contains(logs, "ghs_fake") || strings.Contains(logs, testSecret) {
		t.Errorf("logs lack job attributes or leak a secret:\n%s", logs)
	}

	// Second push: the liveness probe is fixed, the startup probe is not.
	st.fake.AddCommit(owner, repo, head2, map[string]string{
		"deploy/app.yaml":   deployment("ready", "http", "boot"),
		"deploy/other.yaml": untouched,
	})
	st.fake.SetPR(owner, repo, number, baseSHA, head2)
	st.fake.ResetCalls()
	if code := st.deliver(t, "pull_request", "d-2", withHead(t, opened, "synchronize", head2)); code != http.StatusAccepted {
		t.Fatalf("synchronize: status %d", code)
	}
	<-st.done
	if n := len(st.fake.Reviews(owner, repo)); n != 1 {
		t.Errorf("reviews after the second push = %d, want still 1 (no duplicate comment)", n)
	}
	runs = st.fake.CheckRuns(owner, repo)
	if len(runs) != 2 || runs[1].HeadSHA != head2 || runs[1].Conclusion != "failure" || runs[1].Title != "1 new error" {
		t.Errorf("second check run = %+v", runs[len(runs)-1])
	}
	for _, c := range st.fake.Comments(owner, repo) {
		fixed := c.Line == 24
		if c.Resolved != fixed {
			t.Errorf("comment on line %d: resolved %v, want %v", c.Line, c.Resolved, fixed)
		}
	}
	var blobs int
	for _, c := range st.fake.Calls() {
		if strings.Contains(c.Path, "/git/blobs/") {
			blobs++
		}
	}
	if blobs != 0 {
		t.Errorf("blob requests on the second push = %d, want 0 (other.yaml comes from the cache, the changed file from its base version and its patch)", blobs)
	}

	// The same delivery again: not processed twice.
	if code := st.deliver(t, "pull_request", "d-2", withHead(t, opened, "synchronize", head2)); code != http.StatusOK {
		t.Errorf("duplicate delivery: status %d, want 200", code)
	}
	if n := len(st.fake.CheckRuns(owner, repo)); n != 2 {
		t.Errorf("check runs after a duplicate delivery = %d, want 2", n)
	}
}

// TestEverySharedPayloadStartsAReview sends each recorded delivery that
// should start (or re-run) a review.
func TestEverySharedPayloadStartsAReview(t *testing.T) {
	for _, tc := range []struct{ event, file string }{
		{"pull_request", "pull_request_opened.payload.json"},
		{"pull_request", "pull_request_reopened.payload.json"},
		{"pull_request", "pull_request_synchronize.payload.json"},
		{"pull_request", "pull_request_ready_for_review.with-installation.payload.json"},
		{"check_suite", "check_suite_rerequested.payload.json"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body := readPayload(t, tc.file)
			st := newStack(t, 4, true)
			setupRepo(st.fake, "Codertocat", "Hello-World", 2, base, head1)
			if code := st.deliver(t, tc.event, "p-1", body); code != http.StatusAccepted {
				t.Fatalf("status %d, want 202", code)
			}
			<-st.done
			runs := st.fake.CheckRuns("Codertocat", "Hello-World")
			if len(runs) != 1 || runs[0].Conclusion != "failure" || len(st.fake.Reviews("Codertocat", "Hello-World")) != 1 {
				t.Errorf("runs %+v, reviews %d", runs, len(st.fake.Reviews("Codertocat", "Hello-World")))
			}
		})
	}
	for _, tc := range []struct{ event, file string }{
		{"check_suite", "check_suite_requested.payload.json"},
		{"check_run", "check_run_requested_action.payload.json"},
		{"check_run", "check_run_rerequested.payload.json"}, // names no pull request
		{"installation", "installation_created.payload.json"},
		{"installation_repositories", "installation_repositories_added.payload.json"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body := readPayload(t, tc.file)
			st := newStack(t, 4, true)
			if code := st.deliver(t, tc.event, "i-1", body); code != http.StatusOK {
				t.Errorf("status %d, want 200 (ignored)", code)
			}
			if n := len(st.fake.Calls()); n != 0 {
				t.Errorf("%d calls to GitHub for an ignored event", n)
			}
		})
	}
}
