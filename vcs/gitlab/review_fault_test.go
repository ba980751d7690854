package gitlab

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/fakegitlab"
	"github.com/prodready/prodready/internal/testconfig"
	"github.com/prodready/prodready/internal/testmanifest"
)

// faultKind is one way a call to GitLab can fail.
type faultKind string

const (
	fault500     faultKind = "500"
	faultTimeout faultKind = "timeout" // no answer before the client's timeout
	faultReset   faultKind = "reset"   // connection closed without an answer
	fault429     faultKind = "429"
	fault503     faultKind = "503"
)

// clientTimeout is how long the client under test waits for an answer's
// headers; a faultTimeout handler hangs longer.
const clientTimeout = 100 * time.Millisecond

// faultProxy stands between the Host and the fake GitLab: it numbers the
// calls (from 1) and fails call number `at` with kind; intercept, when set,
// may answer a call itself (returning true).
type faultProxy struct {
	*httptest.Server
	kind faultKind
	at   int

	mu        sync.Mutex
	n         int
	faulted   string
	intercept func(w http.ResponseWriter, r *http.Request) bool
}

func newFaultProxy(t *testing.T, fake *fakegitlab.Server) *faultProxy {
	t.Helper()
	target, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	p := &faultProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.n++
		hit := p.kind != "" && p.n == p.at
		kind := p.kind
		if hit {
			p.faulted = r.Method + " " + r.URL.Path
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
			http.Error(w, `{"message":"500 Internal Server Error"}`, http.StatusInternalServerError)
		case fault503:
			http.Error(w, `{"message":"503 Service Unavailable"}`, http.StatusServiceUnavailable)
		case faultTimeout:
			select {
			case <-r.Context().Done():
			case <-time.After(3 * clientTimeout):
			}
		case faultReset:
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		case fault429:
			w.Header().Set("Retry-After", "3")
			http.Error(w, `{"message":"429 Too Many Requests"}`, http.StatusTooManyRequests)
		}
	}))
	t.Cleanup(p.Close)
	return p
}

// set arms the proxy: call number at fails with kind.
func (p *faultProxy) set(kind faultKind, at int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.kind, p.at = kind, at
}

// faultedCall is the call that was failed ("" when none).
func (p *faultProxy) faultedCall() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faulted
}

func (p *faultProxy) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// proxiedHost is a Host talking to a fake GitLab (one merge request, !1 of
// project 7, adding a manifest with two findings) through a faultProxy,
// with a fake clock.
func proxiedHost(t *testing.T) (*Host, *fakegitlab.Server, *faultProxy, *fakeClock, bot.PullRequest) {
	t.Helper()
	fake, pr := setup(t,
		map[string]string{".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared"), "README.md": "# app\n"},
		map[string]string{".prodready.yaml": testconfig.OnlyRule("probe-named-port-undeclared"), "README.md": "# app\n", "deploy/web.yaml": faultWeb})
	proxy := newFaultProxy(t, fake)
	h, err := NewHost(Options{
		BaseURL: proxy.URL, Token: fake.Token, RetryBudget: time.Minute, RetryWait: 100 * time.Millisecond, HeadWait: time.Second,
		HTTPClient: &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: clientTimeout}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	h.clk.now, h.clk.sleep = c.now, c.sleep
	return h, fake, proxy, c, pr
}

// faultWeb has two probes on ports no container declares.
var faultWeb = testmanifest.ProbeDeployment("metrics", "admin")

// TestFaultOnEveryCallOfAReview injects each fault on the Nth call of a
// normal review, for every N. A call that may be repeated is retried (on
// the fake clock) and the review ends exactly as without the fault; a POST
// that may have been carried out is not repeated, and the review ends its
// commit status failed, saying why. The status is never left pending or
// running, and never reports success it did not earn.
func TestFaultOnEveryCallOfAReview(t *testing.T) {
	h, fake, proxy, _, pr := proxiedHost(t)
	rv := bot.NewReviewer(nil, nil)
	rv.Suggest = nil
	if err := rv.Review(context.Background(), h, pr); err != nil {
		t.Fatalf("review without faults: %v", err)
	}
	total := proxy.calls()
	want := fake.Statuses()
	wantDiscussions := len(fake.Discussions(projectID, 1))
	if total < 6 || len(want) != 2 || want[1].State != "failed" || !strings.Contains(want[1].Description, "2 new errors") || wantDiscussions != 3 {
		t.Fatalf("baseline: %d calls, statuses %+v, %d discussions", total, want, wantDiscussions)
	}
	for _, kind := range []faultKind{fault500, fault503, faultTimeout, faultReset, fault429} {
		for n := 1; n <= total; n++ {
			t.Run(fmt.Sprintf("%s/call%d", kind, n), func(t *testing.T) {
				h, fake, proxy, clk, pr := proxiedHost(t)
				proxy.set(kind, n)
				rv := bot.NewReviewer(nil, nil)
				rv.Suggest = nil
				err := rv.Review(context.Background(), h, pr)
				faulted := proxy.faultedCall()
				if faulted == "" {
					t.Fatal("no call was faulted")
				}
				st := fake.Statuses()
				if len(st) == 0 {
					if err == nil {
						t.Fatal("review succeeded without setting a status")
					}
					return // failed before the status was first set: nothing to end
				}
				last := st[len(st)-1]
				if last.State == "pending" || last.State == "running" {
					t.Fatalf("status left %q after a %s on %s (err %v)", last.State, kind, faulted, err)
				}
				clk.mu.Lock()
				var waited time.Duration
				for _, d := range clk.slept {
					waited += d
				}
				clk.mu.Unlock()
				if waited > 2*time.Minute {
					t.Errorf("waited %s", waited)
				}
				if err == nil {
					if last.State != "failed" || last.Description != want[1].Description || len(fake.Discussions(projectID, 1)) != wantDiscussions {
						t.Fatalf("after a %s on %s: statuses %+v, %d discussions; want as without the fault", kind, faulted, st, len(fake.Discussions(projectID, 1)))
					}
					return
				}
				if last.State != "failed" || !strings.Contains(last.Description, "could not") {
					t.Fatalf("after a %s on %s the review failed (%v) but the status is %+v", kind, faulted, err, last)
				}
				if strings.HasPrefix(faulted, "GET") && kind != faultTimeout && kind != faultReset {
					t.Errorf("a GET answered %s was not retried: %v", kind, err)
				}
			})
		}
	}
}

// TestEndlessRawFileFailsCleanly: GitLab marks a new file's diff
// too_large (its listing gives no size to trust), so the Host reads the
// file raw; that answer never ends. The read stops at the limit and the
// review ends its status failed.
func TestEndlessRawFileFailsCleanly(t *testing.T) {
	fake, pr := setup(t,
		map[string]string{"README.md": "# app\n"},
		map[string]string{"README.md": "# app\n", "deploy/web.yaml": faultWeb})
	fake.MR(projectID, 1).Diffs[0].TooLarge = true
	proxy := newFaultProxy(t, fake)
	var sent atomic.Int64
	proxy.intercept = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/raw") && !strings.Contains(r.URL.Path, "/blobs/") || strings.Contains(r.URL.Path, ".prodready.yaml") {
			return false
		}
		chunk := []byte(strings.Repeat("# padding\n", 6<<10))
		for sent.Load() < 1<<30 {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				break
			}
		}
		return true
	}
	h, err := NewHost(Options{BaseURL: proxy.URL, Token: fake.Token, RetryWait: time.Millisecond, MaxAnswerBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	rv := bot.NewReviewer(nil, nil)
	err = rv.Review(context.Background(), h, pr)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("review error %v, want the answer-size limit", err)
	}
	st := fake.Statuses()
	if len(st) == 0 || st[len(st)-1].State != "failed" || !strings.Contains(st[len(st)-1].Description, "larger than") {
		t.Errorf("statuses %+v", st)
	}
	if sent.Load() >= 1<<30 {
		t.Error("the whole endless answer was read")
	}
}
