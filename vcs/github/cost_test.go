package github_test

import (
	"archive/tar"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
	ghv "github.com/prodready/prodready/vcs/github"
)

// costRepoFiles is the size of the repository the cost test reviews.
const costRepoFiles = 2000

// costManifest renders manifest i of the cost repository: a Deployment
// and the Service selecting it (a cross-file pair), with image tag tag and
// a trailing comment line rev.
func costManifest(i int, tag, rev string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%04[1]d
  namespace: team-%[4]d
spec:
  replicas: 2
  selector:
    matchLabels: {app: app-%04[1]d}
  template:
    metadata:
      labels: {app: app-%04[1]d}
    spec:
      containers:
        - name: app
          image: registry.example.com/app-%04[1]d:%[2]s
          ports:
            - containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: app-%04[1]d
  namespace: team-%[4]d
spec:
  selector: {app: app-%04[1]d}
  ports:
    - port: 80
      targetPort: 8080
# %[3]s
`, i, tag, rev, i%7)
}

// countingCache counts what a review stores in the cache: Put is a blob
// downloaded, PutParsed a file parsed.
type countingCache struct {
	*bot.LRUCache
	mu           sync.Mutex
	puts, parses int
}

func (c *countingCache) Put(sha string, data []byte) {
	c.mu.Lock()
	c.puts++
	c.mu.Unlock()
	c.LRUCache.Put(sha, data)
}

func (c *countingCache) PutParsed(sha string, f *manifest.File, lim manifest.Limits) {
	c.mu.Lock()
	c.parses++
	c.mu.Unlock()
	c.LRUCache.PutParsed(sha, f, lim)
}

func (c *countingCache) take() (puts, parses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	puts, parses = c.puts, c.parses
	c.puts, c.parses = 0, 0
	return puts, parses
}

// recordingHost keeps the review it publishes.
type recordingHost struct {
	bot.Host
	published bot.Review
}

// MergeBase forwards to the GitHub host, which the review asks for the
// merge base.
func (h *recordingHost) MergeBase(ctx context.Context, pr bot.PullRequest) (string, error) {
	return h.Host.(*ghv.Host).MergeBase(ctx, pr)
}

func (h *recordingHost) Publish(ctx context.Context, pr bot.PullRequest, rh bot.ReviewHandle, r bot.Review) error {
	h.published = r
	return h.Host.Publish(ctx, pr, rh, r)
}

// TestReviewCost reviews pull requests changing 1, 10 and 100 of 2,000
// manifests, twice each (a first push with an empty cache, then a push
// changing the same files again), and checks from the fake's call log that
// the read requests stay the same whatever the sizes (one tarball on the
// cold push, no blob at all), that the writes are
// one check-run create, at most one review and one check-run update per 50
// annotations, that the second push downloads and parses only the changed
// blobs, and that the findings equal those of a review without cache.
func TestReviewCost(t *testing.T) {
	if testing.Short() {
		t.Skip("reviews a 2,000-file repository six times")
	}
	const owner, name = "acme", "platform"
	keyPEM, pub := testKey(t)
	for _, changed := range []int{1, 10, 100} {
		t.Run(fmt.Sprintf("%d-files", changed), func(t *testing.T) {
			fake := fakegithub.New(testAppID, pub)
			defer fake.Close()
			base, head1, head2 := map[string]string{}, map[string]string{}, map[string]string{}
			for i := range costRepoFiles {
				p := fmt.Sprintf("apps/team-%d/app-%04d.yaml", i%7, i)
				base[p] = costManifest(i, "1.0.0", "rev 1")
				head1[p], head2[p] = base[p], base[p]
				if i%(costRepoFiles/changed) == 0 {
					head1[p] = costManifest(i, "latest", "rev 1")
					head2[p] = costManifest(i, "latest", "rev 2")
				}
			}
			// Two rules keep the test fast
			// (the engine's speed has its own benchmarks).
			cfg := testconfig.OnlyRules("image-tag-mutable", "cpu-requests-missing")
			base[".prodready.yaml"], head1[".prodready.yaml"], head2[".prodready.yaml"] = cfg, cfg, cfg
			fake.AddCommit(owner, name, strings.Repeat("b", 40), base)
			fake.AddCommit(owner, name, strings.Repeat("1", 40), head1)
			fake.AddCommit(owner, name, strings.Repeat("2", 40), head2)
			app, err := ghv.NewApp(ghv.AppConfig{AppID: testAppID, PrivateKey: keyPEM, BaseURL: fake.URL, BotLogin: fakegithub.BotLogin})
			if err != nil {
				t.Fatal(err)
			}
			h, err := app.Host(7)
			if err != nil {
				t.Fatal(err)
			}
			cache := &countingCache{LRUCache: bot.NewLRUCache(256 << 20)}
			rv := bot.NewReviewer(cache, nil)
			plain := bot.NewReviewer(nil, nil)
			for push, head := range []string{strings.Repeat("1", 40), strings.Repeat("2", 40)} {
				fake.SetPR(owner, name, 1, strings.Repeat("b", 40), head)
				pr := bot.PullRequest{Host: "github", Repo: owner + "/" + name, Number: 1, BaseSHA: strings.Repeat("b", 40), HeadSHA: head}
				fake.ResetCalls()
				rh := &recordingHost{Host: h}
				if err := rv.Review(context.Background(), rh, pr); err != nil {
					t.Fatal(err)
				}
				tally := fake.TallyString()
				// Reads: config, changed files (one page), the merge base
				// (compare), the trees at base (the first push only: the
				// cache keeps it) and at head, listing the bot's comments,
				// and the manifests not cached: a blob each when at most
				// ArchiveThreshold, else one tarball. The base is read
				// first; the head's versions of the changed files are the
				// base's with their patches applied (checked against the
				// blob SHAs the PR files name), so the first push downloads
				// the base (a tarball) and nothing of the head, and the
				// second push downloads nothing.
				blobs, tarballs, trees := 0, 0, 1
				if push == 0 {
					tarballs, trees = 1, 2
				}
				want := map[string]int{
					fakegithub.RouteContents: 1, fakegithub.RoutePRFiles: 1, fakegithub.RouteTree: trees, fakegithub.RouteCompare: 1,
					"GET /repos/{owner}/{repo}/pulls/{n}/comments": 1,
					fakegithub.RouteBlob:                           blobs, fakegithub.RouteTarball: tarballs, fakegithub.RouteCodeload: tarballs,
				}
				for route, n := range want {
					if got := fake.Count(route); got != n {
						t.Errorf("push %d: %s: %d calls, want %d\n%s", push+1, route, got, n, tally)
					}
				}
				reads := fake.ReadRequests()
				graphql := min(push, 1) // the review threads, once there are some
				if want := 5 + trees + graphql + blobs + tarballs; reads != want {
					t.Errorf("push %d: %d read requests, want %d\n%s", push+1, reads, want, tally)
				}
				if got := fake.Count("POST /graphql"); got != graphql {
					t.Errorf("push %d: %d GraphQL requests, want %d (the review threads)", push+1, got, graphql)
				}
				// Writes: one check run, at most one review, an update per 50
				// annotations and one that completes the run.
				runs := fake.CheckRuns(owner, name)
				run := runs[len(runs)-1]
				if run.Status != "completed" || run.Conclusion == "" {
					t.Errorf("push %d: check run %s/%s", push+1, run.Status, run.Conclusion)
				}
				updates := 1 + (len(run.Annotations)+49)/50
				if got := fake.Count("POST /repos/{owner}/{repo}/check-runs"); got != 1 {
					t.Errorf("push %d: %d check runs created, want 1", push+1, got)
				}
				if got := fake.Count("PATCH /repos/{owner}/{repo}/check-runs/{id}"); got != updates {
					t.Errorf("push %d: %d check-run updates for %d annotations, want %d", push+1, got, len(run.Annotations), updates)
				}
				reviews := fake.Count("POST /repos/{owner}/{repo}/pulls/{n}/reviews")
				if push == 0 && reviews != 1 || reviews > 1 {
					t.Errorf("push %d: %d reviews posted", push+1, reviews)
				}
				if len(rh.published.Findings) == 0 {
					t.Fatalf("push %d: no findings: the test repository should have some", push+1)
				}
				// The cache: the first push downloads and parses every
				// manifest, the second only the changed ones.
				puts, parses := cache.take()
				// (Put counts the downloaded blobs and the derived ones, and
				// the base's tree.)
				wantNew := costRepoFiles + changed // the base, and the head's versions of the changed files
				if push == 1 {
					wantNew = changed
				}
				wantPuts := wantNew
				if push == 0 {
					wantPuts++ // the base's tree
				}
				if puts != wantPuts || parses != wantNew {
					t.Errorf("push %d: %d blobs and trees downloaded or derived, %d parsed; want %d and %d", push+1, puts, parses, wantPuts, wantNew)
				}
				// The same findings and comments as without the cache.
				r, err := plain.Prepare(context.Background(), h, pr, nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(r.Findings, rh.published.Findings); d != "" {
					t.Errorf("push %d: findings differ without cache (-plain +cached):\n%s", push+1, d)
				}
				if d := cmp.Diff(r.Comments, rh.published.Comments); d != "" {
					t.Errorf("push %d: comments differ without cache (-plain +cached):\n%s", push+1, d)
				}
				t.Logf("push %d: %d read requests (%d blobs, %d tarballs), %d findings, %d annotations, %d check-run updates, %d reviews; all calls:\n%s",
					push+1, reads, blobs, tarballs, len(rh.published.Findings), len(run.Annotations), updates, reviews, tally)
			}
		})
	}
}

// TestManifestsFromHostileTarball serves a tarball with entries that must
// never be used (a symbolic link, a path climbing out with "..", an
// absolute path, content that is not the tree's blob) and one file left
// out (export-ignore): Manifests returns exactly the tree's contents,
// reading the left-out file by its blob.
func TestManifestsFromHostileTarball(t *testing.T) {
	const owner, name = "acme", "hostile"
	keyPEM, pub := testKey(t)
	fake := fakegithub.New(testAppID, pub)
	defer fake.Close()
	files := map[string]string{}
	for i := range 3 * ghv.ArchiveThreshold {
		files[fmt.Sprintf("k8s/app-%02d.yaml", i)] = costManifest(i, "1.0.0", "x")
	}
	files["k8s/link.yaml"] = "app-00.yaml" // a symlink in the tree: named, not read
	sha := strings.Repeat("c", 40)
	fake.AddCommit(owner, name, sha, files)
	fake.SetTreeMode(owner, name, sha, "k8s/link.yaml", "120000")
	for _, e := range []fakegithub.ArchiveEntry{
		{Name: "k8s/app-00.yaml", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
		{Name: "k8s/app-01.yaml", Content: "kind: Secret\n"}, // not the tree's blob
		{Name: "k8s/../../app-02.yaml", Content: "kind: Secret\n"},
		{Name: "/k8s/app-03.yaml", Raw: true, Content: "kind: Secret\n"},
		{Name: "k8s/app-04.yaml", Typeflag: tar.TypeLink, Linkname: "k8s/app-05.yaml"},
		{Name: "k8s/app-06.yaml", Omit: true},
		{Name: "k8s/link.yaml", Typeflag: tar.TypeSymlink, Linkname: "app-00.yaml"},
	} {
		fake.AddArchiveEntry(owner, name, e)
	}
	h := installationHost(t, keyPEM, fake)
	pr := bot.PullRequest{Repo: owner + "/" + name, Number: 1, HeadSHA: sha}
	got, err := h.Manifests(context.Background(), pr, sha, bot.WantEach(func(p string) bool { return strings.HasSuffix(p, ".yaml") }), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for p, c := range files {
		if p != "k8s/link.yaml" {
			want[p] = c
		}
	}
	want["k8s/link.yaml"] = "skipped: " + bot.SymbolicLink
	gotMap := map[string]string{}
	for _, f := range got {
		gotMap[f.Path] = string(f.Data)
		if f.Skipped != "" {
			gotMap[f.Path] += "skipped: " + f.Skipped
		}
	}
	if d := cmp.Diff(want, gotMap); d != "" {
		t.Errorf("manifests (-want +got):\n%s", d)
	}
	if n := fake.Count(fakegithub.RouteTarball); n != 1 {
		t.Errorf("%d tarball requests, want 1", n)
	}
	if n := fake.Count(fakegithub.RouteBlob); n != 1 {
		t.Errorf("%d blob requests, want 1 (the file left out of the tarball)\n%s", n, fake.TallyString())
	}
}

// TestManifestsKeepsTheBaseTree reads the manifests at a pull request's
// base twice with a cache and once without, and at its head twice: the
// base's tree is requested once with the cache and the files are the
// same each time (a symbolic link named and not read, a file over the size bound
// unreadable, sizes and blob SHAs as the tree says); the head's tree,
// which changes at every push, is requested each time.
func TestManifestsKeepsTheBaseTree(t *testing.T) {
	const owner, name = "acme", "trees"
	keyPEM, pub := testKey(t)
	fake := fakegithub.New(testAppID, pub)
	defer fake.Close()
	files := map[string]string{
		"k8s/app.yaml":         costManifest(1, "1.0.0", "x"),
		"k8s/caf\u00e9 2.yaml": costManifest(2, "1.0.0", "x"),
		"k8s/link.yaml":        "app.yaml", // a symlink in the tree: named, not read
		"k8s/huge.yaml":        "kind: ConfigMap\ndata:\n  a: " + strings.Repeat("a", bot.MaxFileBytes) + "\n",
		"README.md":            "not picked\n",
	}
	baseSHA, headSHA := strings.Repeat("b", 40), strings.Repeat("1", 40)
	fake.AddCommit(owner, name, baseSHA, files)
	fake.SetTreeMode(owner, name, baseSHA, "k8s/link.yaml", "120000")
	files["k8s/app.yaml"] = costManifest(1, "latest", "x")
	fake.AddCommit(owner, name, headSHA, files)
	h := installationHost(t, keyPEM, fake)
	pr := bot.PullRequest{Repo: owner + "/" + name, Number: 1, BaseSHA: baseSHA, HeadSHA: headSHA}
	yaml := bot.WantEach(func(p string) bool { return strings.HasSuffix(p, ".yaml") })
	read := func(ref string, cache bot.BlobCache) []bot.File {
		t.Helper()
		got, err := h.Manifests(context.Background(), pr, ref, yaml, cache)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	cache := bot.NewLRUCache(64 << 20)
	plain := read(baseSHA, nil)
	if len(plain) != 4 {
		t.Fatalf("%d files at base, want 4 (app, café 2, huge, and the link): %+v", len(plain), plain)
	}
	for _, f := range plain {
		if f.Path == "k8s/link.yaml" && (f.Skipped != bot.SymbolicLink || f.Data != nil) {
			t.Errorf("the link: %+v, want it named as a link, not read", f)
		}
	}
	fake.ResetCalls()
	for i := range 2 {
		if d := cmp.Diff(plain, read(baseSHA, cache)); d != "" {
			t.Errorf("read %d at base with the cache (-without +with):\n%s", i+1, d)
		}
	}
	if n := fake.Count(fakegithub.RouteTree); n != 1 {
		t.Errorf("%d tree requests for two reads at base, want 1", n)
	}
	fake.ResetCalls()
	for range 2 {
		read(headSHA, cache)
	}
	if n := fake.Count(fakegithub.RouteTree); n != 2 {
		t.Errorf("%d tree requests for two reads at head, want 2", n)
	}
}

// installationHost is the Host of installation 7 of the test App on fake.
func installationHost(t *testing.T, keyPEM []byte, fake *fakegithub.Server) bot.Host {
	t.Helper()
	app, err := ghv.NewApp(ghv.AppConfig{AppID: testAppID, PrivateKey: keyPEM, BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	h, err := app.Host(7)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
