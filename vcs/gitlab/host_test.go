package gitlab

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/fakegitlab"
)

const (
	testToken   = "glpat-test-token"
	projectID   = 7
	projectPath = "group/sub/project"
)

// fakeClock advances only when slept on, so retries and waits take no time.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.slept = append(c.slept, d)
	return nil
}

func newTestHost(t *testing.T, s *fakegitlab.Server) (*Host, *fakeClock) {
	t.Helper()
	h, err := NewHost(Options{BaseURL: s.URL, Token: s.Token, RetryBudget: time.Minute, RetryWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	h.clk.now, h.clk.sleep = c.now, c.sleep
	return h, c
}

// setup starts a fake GitLab with one project whose merge request !1 goes
// from base to head.
func setup(t *testing.T, base, head map[string]string) (*fakegitlab.Server, bot.PullRequest) {
	t.Helper()
	s := fakegitlab.New(testToken)
	t.Cleanup(s.Close)
	s.AddProject(projectID, projectPath)
	b := s.Commit(projectID, base)
	hd := s.Commit(projectID, head)
	s.Push(projectID, 1, b, hd, 0)
	return s, bot.PullRequest{Host: "gitlab", Repo: projectPath, RepoID: projectID, Number: 1, HeadSHA: hd, URL: "https://gitlab.example/mr/1"}
}

func TestResolveWaitsForDiffRefs(t *testing.T) {
	s, pr := setup(t, map[string]string{"a.yaml": "a: 1\n"}, map[string]string{"a.yaml": "a: 2\n"})
	s.MR(projectID, 1).PendingRefs = 2
	// The target branch moved on since the merge base: start differs.
	s.MR(projectID, 1).StartSHA = s.Commit(projectID, map[string]string{"a.yaml": "a: 1\n", "b.yaml": "b: 1\n"})
	h, clk := newTestHost(t, s)
	got, err := h.Resolve(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	mr := s.MR(projectID, 1)
	refs, err := h.diffRefs(context.Background(), got) // kept from Resolve: no call
	if err != nil || got.BaseSHA != mr.BaseSHA || got.HeadSHA != mr.HeadSHA || refs.StartSha != mr.StartSHA {
		t.Errorf("resolved %+v (start %s), want the MR's diff_refs %s/%s/%s (%v)", got, refs.StartSha, mr.BaseSHA, mr.StartSHA, mr.HeadSHA, err)
	}
	if n := len(s.CallsTo("GET", "/merge_requests/1")); n != 3 {
		t.Errorf("GET merge request %d times, want 3 (two without diff_refs)", n)
	}
	if len(clk.slept) != 2 {
		t.Errorf("waited %d times, want 2", len(clk.slept))
	}
	// Cached: no new call.
	if _, err := h.Resolve(context.Background(), pr); err != nil {
		t.Fatal(err)
	}
	if n := len(s.CallsTo("GET", "/merge_requests/1")); n != 3 {
		t.Errorf("a second Resolve fetched the MR again (%d calls)", n)
	}
}

func TestResolveGivesUpWhenTheHeadMovedOn(t *testing.T) {
	s, pr := setup(t, map[string]string{"a.yaml": "a: 1\n"}, map[string]string{"a.yaml": "a: 2\n"})
	pr.HeadSHA = "0123456789abcdef0123456789abcdef01234567"
	h, _ := newTestHost(t, s)
	if _, err := h.Resolve(context.Background(), pr); err == nil || !strings.Contains(err.Error(), "moved on") {
		t.Errorf("Resolve with a superseded head: err = %v, want one saying the MR moved on", err)
	}
}

func TestChangedFilesPaginatesAndHandlesTooLarge(t *testing.T) {
	base := map[string]string{"big.yaml": "x: 1\n", "collapsed.yaml": "c: 1\n"}
	head := map[string]string{"big.yaml": "x: 2\n", "collapsed.yaml": "c: 2\n", "new-big.yaml": "a: 1\nb: 2\n"}
	for i := range 130 {
		head[fmt.Sprintf("many/f%03d.yaml", i)] = "k: v\n"
	}
	for _, noRaw := range []bool{false, true} {
		s, pr := setup(t, base, head)
		mr := s.MR(projectID, 1)
		mr.NoRawDiffs = noRaw
		for i := range mr.Diffs {
			switch mr.Diffs[i].NewPath {
			case "big.yaml", "new-big.yaml":
				mr.Diffs[i].TooLarge = true
			case "collapsed.yaml":
				mr.Diffs[i].Collapsed = true
			}
		}
		h, _ := newTestHost(t, s)
		files, err := h.ChangedFiles(context.Background(), pr)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 133 {
			t.Fatalf("got %d changed files, want 133 (two pages)", len(files))
		}
		if n := len(s.CallsTo("GET", "/merge_requests/1/diffs")); n != 2 {
			t.Errorf("%d diff pages fetched, want 2", n)
		}
		if n := len(s.CallsTo("GET", "/merge_requests/1/raw_diffs")); n != 1 {
			t.Errorf("raw diff fetched %d times, want once for all files without a diff", n)
		}
		byPath := map[string]bot.ChangedFile{}
		for _, f := range files {
			byPath[f.Path] = f
		}
		want := map[bool]string{false: "@@ -1 +1 @@\n-c: 1\n+c: 2\n", true: ""}[noRaw]
		if f := byPath["collapsed.yaml"]; f.Patch != want || f.Status != "modified" {
			t.Errorf("raw diff available=%v: collapsed file patch %q, want %q", !noRaw, f.Patch, want)
		}
		if f := byPath["new-big.yaml"]; f.Patch != "@@ -0,0 +1,2 @@\n+a: 1\n+b: 2\n" || f.Status != "added" {
			t.Errorf("too large new file: %+v, want an all-added patch from its content", f)
		}
		if f := byPath["many/f000.yaml"]; f.Patch != "@@ -0,0 +1 @@\n+k: v\n" {
			t.Errorf("new file patch = %q", f.Patch)
		}
	}
}

func TestReadFile(t *testing.T) {
	s, pr := setup(t, map[string]string{".prodready.yaml": "rules: {}\n"}, map[string]string{".prodready.yaml": "disable: [all]\n"})
	h, _ := newTestHost(t, s)
	ctx := context.Background()
	got, err := h.ReadFile(ctx, pr, "", ".prodready.yaml")
	if err != nil || string(got) != "rules: {}\n" {
		t.Errorf("ReadFile at the base = %q, %v; want the base's config", got, err)
	}
	got, err = h.ReadFile(ctx, pr, pr.HeadSHA, ".prodready.yaml")
	if err != nil || string(got) != "disable: [all]\n" {
		t.Errorf("ReadFile at head = %q, %v", got, err)
	}
	got, err = h.ReadFile(ctx, pr, pr.HeadSHA, "missing.yaml")
	if err != nil || got != nil {
		t.Errorf("ReadFile of a missing file = %q, %v; want nil, nil", got, err)
	}
	if c := s.CallsTo("GET", "/repository/files/.prodready.yaml/raw"); len(c) == 0 || c[0].Query.Get("ref") != s.MR(projectID, 1).BaseSHA {
		t.Errorf("config not read at the base SHA: %+v", c)
	}
}

func TestWrongTokenIsAnError(t *testing.T) {
	s, pr := setup(t, map[string]string{"a.yaml": "a: 1\n"}, map[string]string{"a.yaml": "a: 2\n"})
	h, err := NewHost(Options{BaseURL: s.URL, Token: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.ReadFile(context.Background(), pr, pr.HeadSHA, "a.yaml")
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("ReadFile with a wrong token: err = %v, want a 401", err)
	}
	if strings.Contains(fmt.Sprint(err), "wrong") {
		t.Errorf("error shows the token: %v", err)
	}
}

type mapCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *mapCache) Get(sha string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[sha]
	return b, ok
}
func (c *mapCache) Put(sha string, b []byte) { c.mu.Lock(); defer c.mu.Unlock(); c.m[sha] = b }

func TestManifestsWalksTheTreeAndCachesBlobs(t *testing.T) {
	head := map[string]string{"README.md": "# hi\n"}
	for i := range 120 {
		head[fmt.Sprintf("deploy/d%03d.yaml", i)] = fmt.Sprintf("n: %d\n", i)
	}
	s, pr := setup(t, map[string]string{}, head)
	h, _ := newTestHost(t, s)
	cache := &mapCache{m: map[string][]byte{}}
	want := bot.WantEach(func(p string) bool { return strings.HasSuffix(p, ".yaml") })
	files, err := h.Manifests(context.Background(), pr, pr.HeadSHA, want, cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 120 {
		t.Fatalf("got %d manifests, want 120", len(files))
	}
	for _, f := range files {
		if f.Data == nil || head[f.Path] != string(f.Data) || f.SHA != fakegitlab.BlobSHA(head[f.Path]) {
			t.Fatalf("file %s = %q (sha %s), want its content", f.Path, f.Data, f.SHA)
		}
	}
	c := s.CallsTo("GET", "/repository/tree")
	if len(c) != 2 || c[0].Query.Get("recursive") != "true" || c[0].Query.Get("pagination") != "keyset" ||
		c[1].Query.Get("page_token") == "" || c[1].Query.Get("recursive") != "true" || c[1].Query.Get("ref") != pr.HeadSHA {
		t.Errorf("tree listing: %+v, want two recursive keyset pages at head", c)
	}
	// 120 missing blobs: one archive of the commit, no blob.
	blobs := len(s.CallsTo("GET", "/repository/blobs/"))
	archives := s.CallsTo("GET", "/repository/archive.tar.gz")
	if blobs != 0 || len(archives) != 1 || archives[0].Query.Get("sha") != pr.HeadSHA {
		t.Errorf("%d blobs and archives %+v fetched, want one archive at head and no blob", blobs, archives)
	}
	if _, err := h.Manifests(context.Background(), pr, pr.HeadSHA, want, cache); err != nil {
		t.Fatal(err)
	}
	if n := len(s.CallsTo("GET", "/repository/blobs/")) + len(s.CallsTo("GET", "/repository/archive")); n != 1 {
		t.Errorf("second walk fetched %d more blobs or archives, want 0 (cached by SHA)", n-1)
	}
	// A few missing: a blob each, no archive.
	few := bot.WantEach(func(p string) bool {
		return strings.HasSuffix(p, ".yaml") && p < fmt.Sprintf("deploy/d%03d.yaml", ArchiveThreshold)
	})
	files, err = h.Manifests(context.Background(), pr, pr.HeadSHA, few, &mapCache{m: map[string][]byte{}})
	if err != nil || len(files) != ArchiveThreshold {
		t.Fatalf("%d files, %v", len(files), err)
	}
	if b, a := len(s.CallsTo("GET", "/repository/blobs/")), len(s.CallsTo("GET", "/repository/archive")); b != ArchiveThreshold || a != 1 {
		t.Errorf("%d blobs and %d archives for %d missing files, want a blob each and no new archive", b, a, ArchiveThreshold)
	}
}

// TestManifestsKeepsTheBaseTree: the tree at a merge request's base (a
// commit, which every push lists again) is listed once with a cache and
// read back the same; the head's is listed at every read.
func TestManifestsKeepsTheBaseTree(t *testing.T) {
	files := map[string]string{"README.md": "# hi\n"}
	for i := range 120 {
		files[fmt.Sprintf("deploy/d%03d.yaml", i)] = fmt.Sprintf("n: %d\n", i)
	}
	head := map[string]string{"deploy/new.yaml": "n: new\n"}
	for p, data := range files {
		head[p] = data
	}
	s, pr := setup(t, files, head)
	h, _ := newTestHost(t, s)
	pr.BaseSHA = s.MR(projectID, 1).BaseSHA
	want := bot.WantEach(func(p string) bool { return strings.HasSuffix(p, ".yaml") })
	read := func(ref string, cache bot.BlobCache) []bot.File {
		t.Helper()
		got, err := h.Manifests(context.Background(), pr, ref, want, cache)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	plain := read(pr.BaseSHA, nil)
	if len(plain) != 120 {
		t.Fatalf("%d files at base, want 120", len(plain))
	}
	cache := &mapCache{m: map[string][]byte{}}
	before := len(s.CallsTo("GET", "/repository/tree"))
	for i := range 2 {
		if d := cmp.Diff(plain, read(pr.BaseSHA, cache)); d != "" {
			t.Errorf("read %d at base with the cache (-without +with):\n%s", i+1, d)
		}
	}
	if n := len(s.CallsTo("GET", "/repository/tree")) - before; n != 2 {
		t.Errorf("%d tree pages listed for two reads at base, want 2 (one listing of 120 files)", n)
	}
	before = len(s.CallsTo("GET", "/repository/tree"))
	for range 2 {
		read(pr.HeadSHA, cache)
	}
	if n := len(s.CallsTo("GET", "/repository/tree")) - before; n != 4 {
		t.Errorf("%d tree pages listed for two reads at head, want 4", n)
	}
}

// TestManifestsArchiveFallsBackToBlobs makes the archive fail: Manifests
// reads every missing blob instead, and says so.
func TestManifestsArchiveFallsBackToBlobs(t *testing.T) {
	head := map[string]string{}
	for i := range 20 {
		head[fmt.Sprintf("d%02d.yaml", i)] = fmt.Sprintf("n: %d\n", i)
	}
	s, pr := setup(t, map[string]string{}, head)
	h, _ := newTestHost(t, s)
	s.Fail("GET", fmt.Sprintf("/projects/%d/repository/archive", projectID), http.StatusForbidden, 1)
	files, err := h.Manifests(context.Background(), pr, pr.HeadSHA, bot.WantEach(func(string) bool { return true }), nil)
	if err != nil || len(files) != 20 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	for _, f := range files {
		if string(f.Data) != head[f.Path] {
			t.Errorf("%s = %q", f.Path, f.Data)
		}
	}
	if b := len(s.CallsTo("GET", "/repository/blobs/")); b != 20 {
		t.Errorf("%d blobs read after the archive failed, want 20", b)
	}
}

func TestRetriesWithinBudget(t *testing.T) {
	s, pr := setup(t, map[string]string{"a.yaml": "a: 1\n"}, map[string]string{"a.yaml": "a: 2\n"})
	h, clk := newTestHost(t, s)
	s.Fail("GET", "/projects/7/repository/files/", http.StatusTooManyRequests, 1)
	s.Fail("GET", "/projects/7/repository/files/", http.StatusBadGateway, 2)
	got, err := h.ReadFile(context.Background(), pr, pr.HeadSHA, "a.yaml")
	if err != nil || string(got) != "a: 2\n" {
		t.Fatalf("ReadFile after 429, 502, 502 = %q, %v; want the file", got, err)
	}
	if len(clk.slept) != 3 {
		t.Errorf("waited %d times, want 3", len(clk.slept))
	}
	// A server that keeps failing: retried until the budget, then an error.
	s.Fail("GET", "/projects/7/repository/files/", http.StatusServiceUnavailable, 1000)
	_, err = h.ReadFile(context.Background(), pr, pr.HeadSHA, "a.yaml")
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("ReadFile against a failing server: err = %v, want a 503", err)
	}
	var total time.Duration
	for _, d := range clk.slept[3:] {
		total += d
	}
	if total > time.Minute || len(clk.slept) < 6 {
		t.Errorf("waited %v over %d retries; want several retries within the one-minute budget", total, len(clk.slept)-3)
	}
}

func TestPostAfter5xxIsRepeatedOnlyWhenNotCarriedOut(t *testing.T) {
	r := bot.Review{Findings: []checks.Finding{{RuleID: "r", File: "a.yaml", Line: 1, Message: "m"}}, Summary: "sum", Conclusion: "success", Title: "1 warning"}
	for _, tc := range []struct {
		name          string
		inject        func(s *fakegitlab.Server)
		posts, notes  int
		wantErr       bool
		wantLastState string
	}{
		{"5xx before GitLab acted", func(s *fakegitlab.Server) { s.Fail("POST", "/projects/7/merge_requests/1/notes", 500, 1) }, 2, 1, false, "success"},
		{"5xx after GitLab acted", func(s *fakegitlab.Server) { s.FailAfter("POST", "/projects/7/merge_requests/1/notes", 502, 1) }, 1, 1, false, "success"},
		{"GitLab keeps failing", func(s *fakegitlab.Server) { s.Fail("POST", "/projects/7/merge_requests/1/notes", 500, 100) }, maxPostAttempts, 0, true, "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, pr := setup(t, map[string]string{"a.yaml": "a: 1\n"}, map[string]string{"a.yaml": "a: 2\n"})
			h, _ := newTestHost(t, s)
			tc.inject(s)
			err := h.Publish(context.Background(), pr, bot.ReviewHandle{}, r)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Publish: %v, want error %v", err, tc.wantErr)
			}
			if n := len(s.CallsTo("POST", "/merge_requests/1/notes")); n != tc.posts {
				t.Errorf("note POSTed %d times, want %d", n, tc.posts)
			}
			if n := len(s.Discussions(projectID, 1)); n != tc.notes {
				t.Errorf("%d notes on the merge request, want %d", n, tc.notes)
			}
			st := s.Statuses()
			if len(st) == 0 || st[len(st)-1].State != tc.wantLastState {
				t.Fatalf("statuses %+v: want the last one %s", st, tc.wantLastState)
			}
			if tc.wantErr && !strings.Contains(st[len(st)-1].Description, "could not publish") {
				t.Errorf("failed status without a clear description: %q", st[len(st)-1].Description)
			}
		})
	}
}

func TestSupersededPushIsCanceledNotPublished(t *testing.T) {
	s, pr := setup(t, map[string]string{"a.yaml": "a: 1\n"}, map[string]string{"a.yaml": "a: 2\n"})
	h, _ := newTestHost(t, s)
	ctx := context.Background()
	if _, err := h.ChangedFiles(ctx, pr); err != nil {
		t.Fatal(err)
	}
	// A newer push lands while this review runs.
	mr := s.MR(projectID, 1)
	newer := s.Commit(projectID, map[string]string{"a.yaml": "a: 3\n"})
	s.Push(projectID, 1, mr.BaseSHA, newer, 0)
	r := bot.Review{Findings: []checks.Finding{{RuleID: "r", File: "a.yaml", Line: 1, Message: "m"}}, Summary: "old", Conclusion: "failure", Title: "1 error"}
	if err := h.Publish(ctx, pr, bot.ReviewHandle{}, r); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Discussions(projectID, 1)); n != 0 {
		t.Errorf("a superseded review posted %d notes", n)
	}
	st := s.Statuses()
	if len(st) != 1 || st[0].State != "canceled" || st[0].SHA != pr.HeadSHA || !strings.Contains(st[0].Description, "Superseded") {
		t.Errorf("statuses = %+v, want the old head canceled as superseded", st)
	}
	// Fail on a superseded head cancels too.
	pr2 := pr
	pr2.HeadSHA = s.Commit(projectID, map[string]string{"a.yaml": "a: 4\n"})
	if err := h.Fail(ctx, pr2, bot.ReviewHandle{}, "boom"); err != nil {
		t.Fatal(err)
	}
	if st := s.Statuses(); st[len(st)-1].State != "canceled" {
		t.Errorf("Fail on a superseded head set %+v, want canceled", st[len(st)-1])
	}
}
