package github_test

import (
	"context"
	"crypto/sha1"
	"fmt"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
	ghv "github.com/prodready/prodready/vcs/github"
)

// threadRules are the rules of the thread tests: an error (its own
// thread), two container warnings (one thread per container), a
// cross-file warning, and an info (summary only).
var threadRules = testconfig.OnlyRules("probe-named-port-undeclared", "cpu-requests-missing", "memory-requests-missing", "pdb-missing", "recommended-labels-missing")

const webApp = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 128Mi}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector: {app: web}
  ports:
    - port: 80
`

const webPDB = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: shop
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
`

// apiApp is a Deployment whose container has no requests (two warnings:
// one thread) and whose liveness probe targets port (an error when it is
// a name the container does not declare: a thread of its own). reformat
// writes the same objects with other lines: a comment on top, blank
// lines, block mappings for flow ones.
func apiApp(port string, reformat bool) string {
	s := fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: shop
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: nginx:1.27
          ports:
            - containerPort: 8080
          livenessProbe:
            tcpSocket:
              port: %s
`, port)
	if !reformat {
		return s
	}
	s = strings.Replace(s, "matchLabels: {app: api}", "matchLabels:\n      app: api\n", 1)
	s = strings.Replace(s, "labels: {app: api}", "labels:\n        app: api", 1)
	return "# the api, reformatted\n\n" + strings.Replace(s, "metadata:\n  name: api", "metadata:\n\n  name: api", 1)
}

// threadRig is a fake GitHub with one pull request and the reviewer.
type threadRig struct {
	t    *testing.T
	fake *fakegithub.Server
	host bot.Host
	rv   *bot.Reviewer
	base map[string]string
	n    int
}

const rigOwner, rigRepo = "acme", "shop"

// editRoute is the fake's route that edits a review comment in place.
const editRoute = "PATCH /repos/{owner}/{repo}/pulls/comments/{id}"

func newThreadRig(t *testing.T, base map[string]string) *threadRig {
	keyPEM, pub := testKey(t)
	fake := fakegithub.New(testAppID, pub)
	t.Cleanup(fake.Close)
	fake.AddCommit(rigOwner, rigRepo, strings.Repeat("b", 40), base)
	app, err := ghv.NewApp(ghv.AppConfig{AppID: testAppID, PrivateKey: keyPEM, BaseURL: fake.URL, BotLogin: fakegithub.BotLogin})
	if err != nil {
		t.Fatal(err)
	}
	h, err := app.Host(7)
	if err != nil {
		t.Fatal(err)
	}
	return &threadRig{t: t, fake: fake, host: h, rv: bot.NewReviewer(bot.NewLRUCache(64<<20), nil), base: base}
}

// push makes head the pull request's head and reviews it.
func (g *threadRig) push(head map[string]string) {
	g.t.Helper()
	g.n++
	sha := fmt.Sprintf("%040d", g.n)
	g.fake.AddCommit(rigOwner, rigRepo, sha, head)
	g.fake.SetPR(rigOwner, rigRepo, 1, strings.Repeat("b", 40), sha)
	pr := bot.PullRequest{Host: "github", Repo: rigOwner + "/" + rigRepo, Number: 1, BaseSHA: strings.Repeat("b", 40), HeadSHA: sha,
		URL: "https://github.com/acme/shop/pull/1"}
	if err := g.rv.Review(context.Background(), g.host, pr); err != nil {
		g.t.Fatalf("push %d: %v", g.n, err)
	}
}

// threads are the bot's threads (top-level review comments), keyed by
// thread key; a key twice is an error.
func (g *threadRig) threads() map[string]fakegithub.Comment {
	g.t.Helper()
	out := map[string]fakegithub.Comment{}
	for _, c := range g.fake.Comments(rigOwner, rigRepo) {
		if c.InReplyTo != 0 {
			continue
		}
		k := bot.ThreadKey(c.Body)
		if _, dup := out[k]; dup {
			g.t.Errorf("push %d: two threads for %s", g.n, k)
		}
		out[k] = c
	}
	return out
}

func (g *threadRig) run() fakegithub.CheckRun {
	runs := g.fake.CheckRuns(rigOwner, rigRepo)
	return runs[len(runs)-1]
}

// byRule finds the thread whose first line names rule (or the container).
func byRule(ts map[string]fakegithub.Comment, what string) (fakegithub.Comment, bool) {
	for _, c := range ts {
		first, _, _ := strings.Cut(c.Body, "\n")
		if strings.Contains(first, what) {
			return c, true
		}
	}
	return fakegithub.Comment{}, false
}

// TestThreadsAcrossPushes reviews a sequence of pushes of one pull request
// and checks the threads after each: add a Deployment, fix its error,
// break it again, move it to another file, reformat it.
func TestThreadsAcrossPushes(t *testing.T) {
	base := map[string]string{"deploy/web.yaml": webApp, "deploy/pdb.yaml": webPDB, ".prodready.yaml": threadRules}
	g := newThreadRig(t, base)
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	check := func(step string, wantThreads int, resolved map[string]bool) map[string]fakegithub.Comment {
		t.Helper()
		ts := g.threads()
		if len(ts) != wantThreads {
			t.Errorf("%s: %d threads, want %d", step, len(ts), wantThreads)
		}
		for what, want := range resolved {
			c, ok := byRule(ts, what)
			if !ok {
				t.Errorf("%s: no thread about %s", step, what)
				continue
			}
			if c.Resolved != want {
				t.Errorf("%s: thread about %s resolved %v, want %v", step, what, c.Resolved, want)
			}
		}
		return ts
	}

	// 1. Add: the error has its thread at its line; the container's two
	// warnings one thread; the info is in the summary only.
	g.push(with(map[string]string{"deploy/api.yaml": apiApp("metrics", false)}))
	ts := check("add", 2, map[string]bool{"probe-named-port-undeclared": false, "container `api`": false})
	if c, _ := byRule(ts, "probe-named-port-undeclared"); c.Line != 20 || c.Path != "deploy/api.yaml" {
		t.Errorf("add: error thread at %s:%d, want deploy/api.yaml:20", c.Path, c.Line)
	}
	if c, _ := byRule(ts, "container `api`"); !strings.Contains(c.Body, "`cpu-requests-missing`") || !strings.Contains(c.Body, "`memory-requests-missing`") || strings.Contains(c.Body, "probe-named-port") {
		t.Errorf("add: the container thread is not about its two warnings only:\n%s", c.Body)
	}
	for _, c := range ts {
		if strings.Contains(c.Body, "recommended-labels-missing") {
			t.Errorf("add: an info finding is inline:\n%s", c.Body)
		}
	}
	run := g.run()
	if !strings.Contains(run.Summary, "**4 new** · **0 fixed** · **0 pre-existing**") || !strings.Contains(run.Summary, "recommended-labels-missing") {
		t.Errorf("add: summary:\n%s", run.Summary)
	}
	posted := len(g.fake.Reviews(rigOwner, rigRepo))

	// 2. Fix the error: its thread is resolved, the other kept as it is.
	g.push(with(map[string]string{"deploy/api.yaml": apiApp("8080", false)}))
	check("fix", 2, map[string]bool{"probe-named-port-undeclared": true, "container `api`": false})
	if n := len(g.fake.Reviews(rigOwner, rigRepo)); n != posted {
		t.Errorf("fix: %d reviews posted, want none", n-posted)
	}
	if run := g.run(); !strings.Contains(run.Summary, "**3 new** · **0 fixed**") {
		t.Errorf("fix: summary:\n%s", run.Summary)
	}

	// 3. Break it again: the resolved thread is reopened, not duplicated.
	g.push(with(map[string]string{"deploy/api.yaml": apiApp("metrics", false)}))
	check("break again", 2, map[string]bool{"probe-named-port-undeclared": false, "container `api`": false})
	if n := len(g.fake.Reviews(rigOwner, rigRepo)); n != posted {
		t.Errorf("break again: %d reviews posted, want none", n-posted)
	}

	// 3b. Break it another way: the finding keeps its identity (rule,
	// object, container, field path) but its message names another port.
	// The thread's first comment is edited in place (PATCH), nothing is
	// posted, resolved or replied.
	probe, _ := byRule(g.threads(), "probe-named-port-undeclared")
	edits := g.fake.Count(editRoute)
	g.push(with(map[string]string{"deploy/api.yaml": apiApp("admin", false)}))
	ts = check("break differently", 2, map[string]bool{"probe-named-port-undeclared": false, "container `api`": false})
	if n := len(g.fake.Reviews(rigOwner, rigRepo)); n != posted {
		t.Errorf("break differently: %d reviews posted, want none", n-posted)
	}
	if n := g.fake.Count(editRoute); n != edits+1 {
		t.Errorf("break differently: %d PATCH of a review comment, want 1\n%s", n-edits, g.fake.TallyString())
	}
	if c, _ := byRule(ts, "probe-named-port-undeclared"); c.ID != probe.ID || c.Edits != probe.Edits+1 || !strings.Contains(c.Body, `port "admin"`) || strings.Contains(c.Body, `port "metrics"`) {
		t.Errorf("break differently: thread %d (edits %d, was %d %d) not edited in place to name port admin:\n%s", c.ID, c.Edits, probe.ID, probe.Edits, c.Body)
	}
	g.push(with(map[string]string{"deploy/api.yaml": apiApp("metrics", false)}))
	check("back to metrics", 2, map[string]bool{"probe-named-port-undeclared": false, "container `api`": false})

	// A person resolves the container thread; the findings are still
	// there: the bot reopens it.
	c, _ := byRule(g.threads(), "container `api`")
	g.fake.SetResolved(rigOwner, rigRepo, c.ID, true)

	// 4. Move the Deployment to another file: the threads stay (none
	// resolved, none posted), the resolved one is reopened.
	g.push(with(map[string]string{"deploy/apps/api.yaml": apiApp("metrics", false)}))
	check("move", 2, map[string]bool{"probe-named-port-undeclared": false, "container `api`": false})
	if n := len(g.fake.Reviews(rigOwner, rigRepo)); n != posted {
		t.Errorf("move: %d reviews posted, want none", n-posted)
	}

	// 5. Reformat the file: still the same threads.
	g.push(with(map[string]string{"deploy/apps/api.yaml": apiApp("metrics", true)}))
	check("reformat", 2, map[string]bool{"probe-named-port-undeclared": false, "container `api`": false})
	if n := len(g.fake.Reviews(rigOwner, rigRepo)); n != posted {
		t.Errorf("reformat: %d reviews posted, want none", n-posted)
	}
	for _, c := range g.fake.Comments(rigOwner, rigRepo) {
		if c.InReplyTo != 0 {
			t.Errorf("a reply was posted: %s", c.Body)
		}
	}
}

// TestDeletedPDBReportsTheUnchangedDeployment deletes the PDB of a
// Deployment whose file the pull request does not touch: pdb-missing is
// new, reported on the Deployment's file as an annotation naming the
// change that caused it.
func TestDeletedPDBReportsTheUnchangedDeployment(t *testing.T) {
	base := map[string]string{"deploy/web.yaml": webApp, "deploy/pdb.yaml": webPDB, ".prodready.yaml": threadRules}
	g := newThreadRig(t, base)
	g.push(map[string]string{"deploy/web.yaml": webApp, ".prodready.yaml": threadRules})
	run := g.run()
	var found bool
	for _, a := range run.Annotations {
		if a.Title == "pdb-missing" && a.Path == "deploy/web.yaml" && strings.Contains(a.Message, "caused by removing `deploy/pdb.yaml`") {
			found = true
		}
	}
	if !found {
		t.Errorf("no pdb-missing annotation on deploy/web.yaml naming the removal: %+v", run.Annotations)
	}
	if !strings.Contains(run.Summary, "**1 new**") || !strings.Contains(run.Summary, "deploy/web.yaml#L") {
		t.Errorf("summary:\n%s", run.Summary)
	}
}

// TestIgnoresAddedByThePullRequestAreDisclosed adds an ignore comment in
// the pull request: the finding is listed under "Ignored by this pull
// request"; unless review.allowIgnoresInPR: true at base it is reported
// anyway.
func TestIgnoresAddedByThePullRequestAreDisclosed(t *testing.T) {
	ignored := strings.Replace(apiApp("metrics", false), "              port: metrics\n", "              port: metrics # prodready:ignore probe-named-port-undeclared the sidecar serves it\n", 1)
	for _, allow := range []bool{true, false} {
		cfg := threadRules
		if allow {
			cfg += "review: {allowIgnoresInPR: true}\n"
		}
		base := map[string]string{"deploy/web.yaml": webApp, "deploy/pdb.yaml": webPDB, ".prodready.yaml": cfg}
		g := newThreadRig(t, base)
		head := map[string]string{"deploy/api.yaml": ignored}
		for k, v := range base {
			head[k] = v
		}
		g.push(head)
		run := g.run()
		if !strings.Contains(run.Summary, "### Ignored by this pull request") || !strings.Contains(run.Summary, "# prodready:ignore probe-named-port-undeclared the sidecar serves it") {
			t.Errorf("allow %v: the ignore is not disclosed:\n%s", allow, run.Summary)
		}
		_, inline := byRule(g.threads(), "probe-named-port-undeclared")
		if inline == allow || (run.Conclusion == "failure") == allow {
			t.Errorf("allow %v: thread %v, conclusion %s", allow, inline, run.Conclusion)
		}
	}
}

// ignoreAll is apiApp's Deployment annotated to ignore every rule.
func ignoreAll(s string) string {
	return strings.Replace(s, "metadata:\n  name: api\n", "metadata:\n  name: api\n  annotations:\n    prodready.dev/ignore: all\n", 1)
}

// TestIgnoreAllAddedByThePullRequestDoesNotPass: a pull request adds a
// Deployment with an error (its probe names a port the container does not
// declare) and annotates it prodready.dev/ignore: all. By default the
// check fails, the finding has its thread, and the summary lists the
// ignore with why it counts; with review.allowIgnoresInPR: true at base
// the check passes and the ignore is still listed. A pull request's own
// .prodready.yaml saying true changes nothing.
func TestIgnoreAllAddedByThePullRequestDoesNotPass(t *testing.T) {
	for _, tc := range []struct {
		name, baseCfg, headCfg, conclusion string
	}{
		{"default", threadRules, threadRules, "failure"},
		{"the pull request's own config", threadRules, threadRules + "review: {allowIgnoresInPR: true}\n", "failure"},
		{"allowed at base", threadRules + "review: {allowIgnoresInPR: true}\n", threadRules + "review: {allowIgnoresInPR: true}\n", "success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := map[string]string{"deploy/web.yaml": webApp, "deploy/pdb.yaml": webPDB, ".prodready.yaml": tc.baseCfg}
			g := newThreadRig(t, base)
			head := map[string]string{"deploy/web.yaml": webApp, "deploy/pdb.yaml": webPDB, ".prodready.yaml": tc.headCfg, "deploy/api.yaml": ignoreAll(apiApp("metrics", false))}
			g.push(head)
			run := g.run()
			if run.Conclusion != tc.conclusion {
				t.Errorf("conclusion %s, want %s:\n%s", run.Conclusion, tc.conclusion, run.Summary)
			}
			if !strings.Contains(run.Summary, "### Ignored by this pull request") || !strings.Contains(run.Summary, "`probe-named-port-undeclared` on Deployment `shop/api`, ignored by this pull request: `prodready.dev/ignore: all`") {
				t.Errorf("the ignore is not listed:\n%s", run.Summary)
			}
			counted := strings.Contains(run.Summary, "counted because an ignore this pull request adds and `review.allowIgnoresInPR` is not true at base")
			if counted != (tc.conclusion == "failure") {
				t.Errorf("counted %v for conclusion %s:\n%s", counted, run.Conclusion, run.Summary)
			}
			if _, inline := byRule(g.threads(), "probe-named-port-undeclared"); inline != (tc.conclusion == "failure") {
				t.Errorf("thread of the ignored finding: %v", inline)
			}
		})
	}
}

// TestIgnoreAtBaseReachingANewFindingCounts: the base annotates a passing
// Deployment prodready.dev/ignore: all; the pull request, without touching
// the annotation, makes its probe name an undeclared port. The base's
// ignore never silenced that finding, so it counts. A finding the base
// already silenced stays silenced when the pull request only rewrites the
// ignore's line.
func TestIgnoreAtBaseReachingANewFindingCounts(t *testing.T) {
	base := map[string]string{"deploy/web.yaml": webApp, "deploy/pdb.yaml": webPDB, ".prodready.yaml": threadRules, "deploy/api.yaml": ignoreAll(apiApp("8080", false))}
	g := newThreadRig(t, base)
	head := map[string]string{"deploy/web.yaml": webApp, "deploy/pdb.yaml": webPDB, ".prodready.yaml": threadRules, "deploy/api.yaml": ignoreAll(apiApp("metrics", false))}
	g.push(head)
	run := g.run()
	if run.Conclusion != "failure" || !strings.Contains(run.Summary, "counted because an ignore the base has, which did not silence it there") {
		t.Errorf("conclusion %s:\n%s", run.Conclusion, run.Summary)
	}

	base["deploy/api.yaml"] = ignoreAll(apiApp("metrics", false))
	g = newThreadRig(t, base)
	head["deploy/api.yaml"] = "# moved down a line\n" + strings.Replace(ignoreAll(apiApp("metrics", false)), "ignore: all", `ignore: "all"`, 1)
	g.push(head)
	run = g.run()
	if run.Conclusion != "success" || strings.Contains(run.Summary, "Ignored by this pull request") {
		t.Errorf("an ignore the base had, moved: conclusion %s:\n%s", run.Conclusion, run.Summary)
	}
}

// TestNewAndFixedAgainstTheMergeBase reviews a pull request whose base
// branch moved on after it branched off: the branch since fixed an error
// (deploy/old.yaml) and added one (deploy/other.yaml). base.sha is the
// branch's tip; the review compares with the merge base, so neither shows
// as new or fixed: only what the pull request adds is new.
func TestNewAndFixedAgainstTheMergeBase(t *testing.T) {
	forkPoint := map[string]string{"deploy/web.yaml": webApp, "deploy/pdb.yaml": webPDB, ".prodready.yaml": threadRules, "deploy/old.yaml": apiApp("metrics", false)}
	g := newThreadRig(t, forkPoint)
	mb := strings.Repeat("b", 40)
	tip, head := strings.Repeat("c", 40), strings.Repeat("d", 40)
	moved := map[string]string{"deploy/other.yaml": renamed(apiApp("health", false), "other")}
	for k, v := range forkPoint {
		moved[k] = v
	}
	moved["deploy/old.yaml"] = apiApp("8080", false)
	added := map[string]string{"deploy/new.yaml": renamed(apiApp("admin", false), "newapp")}
	for k, v := range forkPoint {
		added[k] = v
	}
	g.fake.AddCommit(rigOwner, rigRepo, tip, moved)
	g.fake.SetParents(rigOwner, rigRepo, tip, "main moves on", mb)
	g.fake.AddCommit(rigOwner, rigRepo, head, added)
	g.fake.SetParents(rigOwner, rigRepo, head, "the pull request", mb)
	g.fake.SetPR(rigOwner, rigRepo, 1, tip, head)
	pr := bot.PullRequest{Host: "github", Repo: rigOwner + "/" + rigRepo, Number: 1, BaseSHA: tip, HeadSHA: head, URL: "https://github.com/acme/shop/pull/1"}
	if err := g.rv.Review(context.Background(), g.host, pr); err != nil {
		t.Fatal(err)
	}
	if n := g.fake.Count(fakegithub.RouteCompare); n != 1 {
		t.Errorf("%d compare calls, want 1", n)
	}
	run := g.run()
	if !strings.Contains(run.Summary, "**0 fixed**") || strings.Contains(run.Summary, "old.yaml") || strings.Contains(run.Summary, "other.yaml") || !strings.Contains(run.Summary, "deploy/new.yaml") {
		t.Errorf("the base branch's own changes show as new or fixed, or the pull request's are missing:\n%s", run.Summary)
	}
	for _, a := range run.Annotations {
		if a.Path != "deploy/new.yaml" {
			t.Errorf("annotation on %s: %s", a.Path, a.Message)
		}
	}
}

// renamed is apiApp's Deployment and container named name.
func renamed(s, name string) string {
	return strings.NewReplacer("name: api", "name: "+name, "app: api", "app: "+name).Replace(s)
}

// TestUnreadableBlobIsNamedAndTheReviewGoesOn: GitHub answers 404 for the
// blob of a file the pull request does not touch. The review still
// publishes, with the new finding of the changed file, and the summary
// names the unreadable file with why it was not checked.
func TestUnreadableBlobIsNamedAndTheReviewGoesOn(t *testing.T) {
	base := map[string]string{"deploy/web.yaml": webApp, "deploy/pdb.yaml": webPDB, ".prodready.yaml": threadRules}
	g := newThreadRig(t, base)
	gone := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(webPDB), webPDB))))
	g.fake.Inject(fakegithub.Fault{Method: "GET", PathPrefix: "/repos/" + rigOwner + "/" + rigRepo + "/git/blobs/" + gone, Status: 404, Times: 100})
	head := map[string]string{"deploy/api.yaml": apiApp("metrics", false)}
	for k, v := range base {
		head[k] = v
	}
	g.push(head)
	run := g.run()
	if run.Status != "completed" {
		t.Fatalf("check run %s/%s", run.Status, run.Conclusion)
	}
	if !strings.Contains(run.Summary, "deploy/pdb.yaml") || !strings.Contains(run.Summary, "could not be read: GitHub answered 404") {
		t.Errorf("the unreadable file is not named with why:\n%s", run.Summary)
	}
	if _, ok := byRule(g.threads(), "probe-named-port-undeclared"); !ok {
		t.Errorf("the changed file's finding was not reviewed: %v", g.threads())
	}
}
