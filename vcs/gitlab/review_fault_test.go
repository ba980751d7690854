package gitlab

import (
	"context"
	"crypto/sha1"
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

// TestEndlessBlobIsOneFindingGitLab: a blob answer that never ends is
// read up to the bound and no further; the file the merge request adds
// becomes one yaml-invalid finding naming the bound (in the summary note:
// GitLab gave no diff to comment on), and the review completes.
func TestEndlessBlobIsOneFindingGitLab(t *testing.T) {
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
	if err := rv.Review(context.Background(), h, pr); err != nil {
		t.Fatalf("review: %v", err)
	}
	st := fake.Statuses()
	if len(st) == 0 || st[len(st)-1].State != "failed" {
		t.Errorf("statuses %+v, want the last failed (an error finding)", st)
	}
	var summary string
	for _, d := range fake.Discussions(projectID, 1) {
		if strings.Contains(d.Notes[0].Body, "prodready:summary") {
			summary = d.Notes[0].Body
		}
	}
	if !strings.Contains(summary, "deploy/web.yaml") || !strings.Contains(summary, "yaml-invalid") || !strings.Contains(summary, "over the 1.0 MiB a file is read to") {
		t.Errorf("the summary does not give the file's yaml-invalid finding with the bound:\n%s", summary)
	}
	if sent.Load() >= 1<<30 {
		t.Error("the whole endless answer was read")
	}
}

// TestChangedFileThatCannotBeReadIsOneFindingGitLab: a file the merge
// request adds whose blob GitLab no longer has (its diff too large, so
// the head version cannot be derived from a patch), and one not in UTF-8,
// are each one yaml-invalid finding on that file saying why; the other
// added file is still reviewed.
func TestChangedFileThatCannotBeReadIsOneFindingGitLab(t *testing.T) {
	const big = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n"
	const latin1 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n"
	fake, pr := setup(t,
		map[string]string{"README.md": "# app\n"},
		map[string]string{"README.md": "# app\n", "deploy/web.yaml": faultWeb, "deploy/big.yaml": big, "deploy/latin1.yaml": latin1})
	for i, d := range fake.MR(projectID, 1).Diffs {
		if d.NewPath == "deploy/big.yaml" {
			fake.MR(projectID, 1).Diffs[i].TooLarge = true
		}
	}
	fake.Fail("GET", fmt.Sprintf("/projects/%d/repository/blobs/%s", projectID, fakeBlobSHA(big)), http.StatusNotFound, 100)
	fake.Fail("GET", fmt.Sprintf("/projects/%d/repository/files/deploy/big.yaml", projectID), http.StatusNotFound, 100)
	h, _ := newTestHost(t, fake)
	if err := bot.NewReviewer(bot.NewLRUCache(1<<20), nil).Review(context.Background(), h, pr); err != nil {
		t.Fatalf("review: %v", err)
	}
	var summary string
	inline := map[string]string{}
	for _, d := range fake.Discussions(projectID, 1) {
		n := d.Notes[0]
		if strings.Contains(n.Body, "prodready:summary") {
			summary = n.Body
			continue
		}
		if n.Position != nil && n.Position.NewLine != nil {
			inline[fmt.Sprintf("%s:%d", n.Position.NewPath, *n.Position.NewLine)] = n.Body
		}
	}
	if !strings.Contains(summary, "deploy/big.yaml") || !strings.Contains(summary, "could not be read, so it was not checked: GitLab answered 404") {
		t.Errorf("the summary does not give the unreadable file's finding:\n%s", summary)
	}
	if body := inline["deploy/latin1.yaml:4"]; !strings.Contains(body, "yaml-invalid") || !strings.Contains(body, "not UTF-8: byte 0xE9 at line 4, column 12") {
		t.Errorf("no yaml-invalid discussion at deploy/latin1.yaml:4 (%q); discussions at %v", body, keysOf(inline))
	}
	reviewed := false
	for k := range inline {
		reviewed = reviewed || strings.HasPrefix(k, "deploy/web.yaml:")
	}
	if !reviewed {
		t.Errorf("the other added file was not reviewed: discussions at %v", keysOf(inline))
	}
	if st := fake.Statuses(); len(st) == 0 || st[len(st)-1].State != "failed" {
		t.Errorf("statuses %+v, want the last failed (error findings)", st)
	}
}

// fakeBlobSHA is git's blob SHA of content, as GitLab and its fake name
// blobs.
func fakeBlobSHA(content string) string {
	return fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(content), content))))
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
