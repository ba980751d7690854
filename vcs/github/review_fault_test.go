package github_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/fakegithub"
	ghv "github.com/prodready/prodready/vcs/github"
)

// faultKind is one way a call to GitHub can fail.
type faultKind string

const (
	fault500       faultKind = "500"
	faultTimeout   faultKind = "timeout"   // no answer before the client's timeout
	faultReset     faultKind = "reset"     // connection closed without an answer
	faultSecondary faultKind = "secondary" // 403 secondary rate limit
	fault429       faultKind = "429"
)

// clientTimeout is how long the client under test waits for an answer's
// headers; a faultTimeout handler hangs longer.
const clientTimeout = 100 * time.Millisecond

// faultProxy stands between the bot and the fake GitHub. It numbers the
// calls it sees (from 1) and fails calls from..from+times-1 with kind; the
// others go to the fake unchanged. intercept, when set, may answer a call
// itself (it returns true then); modify may rewrite the fake's answers.
type faultProxy struct {
	srv  *httptest.Server
	URL  string
	kind faultKind
	from int
	// times is how many calls in a row fail (one call and its retries).
	times int

	mu        sync.Mutex
	n         int
	faulted   []string
	intercept func(w http.ResponseWriter, r *http.Request) bool
}

func newFaultProxy(t *testing.T, fake *fakegithub.Server, modify func(*http.Response) error) *faultProxy {
	t.Helper()
	target, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = modify
	p := &faultProxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.n++
		n := p.n
		hit := p.kind != "" && n >= p.from && n < p.from+p.times
		kind := p.kind
		if hit {
			p.faulted = append(p.faulted, fmt.Sprintf("%d %s %s", n, r.Method, r.URL.Path))
		}
		icpt := p.intercept
		p.mu.Unlock()
		if icpt != nil && icpt(w, r) {
			return
		}
		if !hit {
			rp.ServeHTTP(w, r)
			return
		}
		switch kind {
		case fault500:
			http.Error(w, `{"message":"Server Error"}`, http.StatusInternalServerError)
		case faultTimeout:
			select {
			case <-r.Context().Done():
			case <-time.After(3 * clientTimeout):
			}
		case faultReset:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case faultSecondary:
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}`)
		case fault429:
			w.Header().Set("Retry-After", "2")
			http.Error(w, `{"message":"Too Many Requests"}`, http.StatusTooManyRequests)
		}
	}))
	t.Cleanup(p.srv.Close)
	p.URL = p.srv.URL + "/"
	return p
}

// set arms the proxy: calls from..from+times-1 fail with kind.
func (p *faultProxy) set(kind faultKind, from, times int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.kind, p.from, p.times = kind, from, times
}

// setIntercept sets the function that may answer calls itself.
func (p *faultProxy) setIntercept(f func(w http.ResponseWriter, r *http.Request) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.intercept = f
}

// faultedCalls lists the calls that were failed.
func (p *faultProxy) faultedCalls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.faulted...)
}

func (p *faultProxy) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// proxied is the real webhook server, pool, reviewer and GitHub App host,
// talking to a fake GitHub through a faultProxy.
type proxied struct {
	fake   *fakegithub.Server
	proxy  *faultProxy
	srv    *httptest.Server
	server *bot.Server
	pool   *bot.Pool
	app    *ghv.App
	done   chan error
	mu     sync.Mutex
	waited time.Duration
}

// lockedLog is a log sink safe for the logger's goroutines.
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

// newProxied builds the stack; suggest replaces the reviewer's suggestions
// when not nil; logs receives every log line.
func newProxied(t *testing.T, modify func(*http.Response) error, logs *lockedLog, suggest func(string, []byte, []checks.Finding) ([]bot.Suggestion, error)) *proxied {
	t.Helper()
	keyPEM, pub := testKey(t)
	fake := fakegithub.New(testAppID, pub)
	t.Cleanup(fake.Close)
	p := &proxied{fake: fake, done: make(chan error, 16)}
	p.proxy = newFaultProxy(t, fake, modify)
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	metrics := bot.NewMetrics()
	app, err := ghv.NewApp(ghv.AppConfig{
		AppID: testAppID, PrivateKey: keyPEM, BaseURL: p.proxy.URL, Metrics: metrics, BotLogin: fakegithub.BotLogin,
		Transport: &http.Transport{ResponseHeaderTimeout: clientTimeout},
	})
	if err != nil {
		t.Fatal(err)
	}
	app.Retry().Sleep = func(ctx context.Context, d time.Duration) error {
		p.mu.Lock()
		p.waited += d
		p.mu.Unlock()
		return ctx.Err()
	}
	p.app = app
	rv := bot.NewReviewer(bot.NewLRUCache(1<<20), logger)
	if suggest != nil {
		rv.Suggest = suggest
	}
	p.pool = bot.NewPool(func(ctx context.Context, job bot.Job) error {
		err := rv.Run(ctx, job)
		p.done <- err
		return err
	}, bot.PoolOptions{Workers: 1, QueueSize: 8, Logger: logger, Metrics: metrics})
	p.pool.Start()
	p.server = bot.NewServer(p.pool, metrics, logger)
	p.server.Handle(http.MethodPost, "/webhooks/github", &bot.Webhook{
		Intake: ghv.Intake{HostFor: app.Host}, Secret: []byte(testSecret), Queue: p.pool, Metrics: metrics, Logger: logger,
	})
	p.server.SetReady(true)
	p.srv = httptest.NewServer(p.server.Handler())
	t.Cleanup(func() {
		p.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p.pool.Shutdown(ctx)
	})
	return p
}

// review delivers body and waits for its review's result.
func (p *proxied) review(t *testing.T, delivery string, body []byte) error {
	t.Helper()
	st := &stack{srv: p.srv}
	if code := st.deliver(t, "pull_request", delivery, body); code != http.StatusAccepted {
		t.Fatalf("delivery %s: status %d, want 202", delivery, code)
	}
	select {
	case err := <-p.done:
		return err
	case <-time.After(60 * time.Second): // a hang guard, not a timing assertion
		t.Fatalf("review of %s did not end", delivery)
	}
	return nil
}

// TestFaultOnEveryCallOfAReview injects each fault on the Nth call of a
// normal review, for every N: once (the call's retry succeeds: the review
// must end exactly as without the fault) and, except for timeouts, on every
// attempt of that call (the call gives up: the review must end its check
// run with a failure that says why, or never have started one). A check
// run is never left in progress and never claims success.
func TestFaultOnEveryCallOfAReview(t *testing.T) {
	base := newProxied(t, nil, &lockedLog{}, testSuggest)
	setupRepo(base.fake, "acme", "deploys", 7, synthBase, synthHead)
	if err := base.review(t, "base", syntheticOpened(t)); err != nil {
		t.Fatalf("review without faults: %v", err)
	}
	total := base.proxy.calls()
	want := base.fake.CheckRuns("acme", "deploys")
	if total < 8 || len(want) != 1 || want[0].Conclusion != "failure" || want[0].Title != "2 new errors" {
		t.Fatalf("baseline: %d calls, check runs %+v", total, want)
	}
	for _, kind := range []faultKind{fault500, faultTimeout, faultReset, faultSecondary, fault429} {
		for _, persistent := range []bool{false, true} {
			if persistent && kind == faultTimeout {
				continue // every attempt waiting for the client timeout: slow, and the same path as a reset
			}
			for n := 1; n <= total; n++ {
				name := fmt.Sprintf("%s/call%d", kind, n)
				if persistent {
					name = fmt.Sprintf("%s-every-attempt/call%d", kind, n)
				}
				t.Run(name, func(t *testing.T) {
					p := newProxied(t, nil, &lockedLog{}, testSuggest)
					p.app.Retry().MaxAttempts = 3
					setupRepo(p.fake, "acme", "deploys", 7, synthBase, synthHead)
					times := 1
					if persistent {
						times = 3
					}
					p.proxy.set(kind, n, times)
					err := p.review(t, "f-1", syntheticOpened(t))
					faulted := p.proxy.faultedCalls()
					if len(faulted) == 0 {
						t.Fatalf("no call was faulted")
					}
					t.Logf("faulted %v: err %v", faulted, err)
					runs := p.fake.CheckRuns("acme", "deploys")
					for _, r := range runs {
						if r.Status != "completed" {
							t.Fatalf("check run left %q after a %s on call %d (err %v)", r.Status, kind, n, err)
						}
					}
					p.mu.Lock()
					waited := p.waited
					p.mu.Unlock()
					if waited > ghv.DefaultRetryBudget {
						t.Errorf("waited %s in all, over the retry budget", waited)
					}
					if !persistent {
						if err != nil || len(runs) != 1 || runs[0].Conclusion != want[0].Conclusion || runs[0].Title != want[0].Title || len(p.fake.Reviews("acme", "deploys")) != 1 {
							t.Fatalf("after one %s on call %d (%v): err %v, runs %+v", kind, n, faulted, err, runs)
						}
						return
					}
					if err == nil {
						// The call that gave up was one whose failure the
						// review tolerates: then its result must be complete.
						if len(runs) != 1 || runs[0].Conclusion != want[0].Conclusion {
							t.Fatalf("review said ok after %s on call %d, runs %+v", kind, n, runs)
						}
						return
					}
					switch len(runs) {
					case 0: // failed before the check run was created: nothing to end
					case 1:
						if runs[0].Conclusion != "failure" || !strings.Contains(runs[0].Summary, "could not finish") {
							t.Fatalf("after %s on call %d: run %+v, want a failure saying the review could not finish", kind, n, runs[0])
						}
					default:
						t.Fatalf("%d check runs", len(runs))
					}
				})
			}
		}
	}
}

// TestShutdownLetsAcknowledgedReviewFinish: SIGTERM (Server.Shutdown)
// arrives while an acknowledged review waits on GitHub; GitHub answers
// within the grace period, so the review is not lost: Shutdown returns nil
// and the check run completes with the review's real result. (When the
// grace period ends first, TestShutdownEndsUnfinishedReview: the check run
// says to re-run.)
func TestShutdownLetsAcknowledgedReviewFinish(t *testing.T) {
	st := newStack(t, 4, true)
	setupRepo(st.fake, "acme", "deploys", 7, synthBase, synthHead)
	reached, release := st.fake.Hold("GET", "/repos/acme/deploys/git/trees/")
	if code := st.deliver(t, "pull_request", "term-1", syntheticOpened(t)); code != http.StatusAccepted {
		release()
		t.Fatalf("status %d", code)
	}
	<-reached
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // the grace period
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- st.server.Shutdown(ctx) }()
	// The server stops taking deliveries before the review goes on. The
	// probe is another repository's pull request: one the server takes
	// before Shutdown has closed the queue (a race the test does not
	// control) reviews that repository and leaves this one's counts alone.
	elsewhere := bytes.ReplaceAll(syntheticOpened(t), []byte(`deploys"`), []byte(`elsewhere"`))
	for st.deliver(t, "pull_request", "term-2", elsewhere) != http.StatusServiceUnavailable {
		time.Sleep(5 * time.Millisecond)
	}
	release()
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v, want nil (the review finished within the grace period)", err)
	}
	<-st.done
	runs := st.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Title != "2 new errors" || len(st.fake.Reviews("acme", "deploys")) != 1 {
		t.Fatalf("runs %+v, want the review completed", runs)
	}
}
