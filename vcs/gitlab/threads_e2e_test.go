package gitlab_test

import (
	"context"
	"crypto/sha1"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/fakegitlab"
	"github.com/prodready/prodready/internal/testconfig"
	"github.com/prodready/prodready/vcs/gitlab"
)

// seqRules are the rules of the push sequence: an error (its own
// thread), two container warnings (one thread per container), a
// cross-file warning and an info (summary only).
var seqRules = testconfig.OnlyRules("probe-named-port-undeclared", "cpu-requests-missing", "memory-requests-missing", "pdb-missing", "recommended-labels-missing")

const seqWeb = `apiVersion: apps/v1
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
`

const seqPDB = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: shop
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
`

// seqAPI is a Deployment whose container has no requests (two warnings:
// one thread) and whose liveness probe targets port (an error when it is
// a name the container does not declare). reformat writes the same
// objects on other lines.
func seqAPI(port string, reformat bool) string {
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

const seqProject, seqPath = 31, "shop/platform"

// seqRig is a fake GitLab with one merge request and the reviewer.
type seqRig struct {
	t    *testing.T
	gl   *fakegitlab.Server
	host *gitlab.Host
	rv   *bot.Reviewer
	base string
	n    int
}

func newSeqRig(t *testing.T, base map[string]string) *seqRig {
	fake := fakegitlab.New(e2eToken)
	t.Cleanup(fake.Close)
	fake.AddProject(seqProject, seqPath)
	h, err := gitlab.NewHost(gitlab.Options{BaseURL: fake.URL, Token: e2eToken, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return &seqRig{t: t, gl: fake, host: h, rv: bot.NewReviewer(bot.NewLRUCache(64<<20), nil), base: fake.Commit(seqProject, base)}
}

// push makes files the merge request's head and reviews it as a webhook
// delivery would ask (no base SHA: the host resolves diff_refs).
func (g *seqRig) push(files map[string]string) {
	g.t.Helper()
	g.n++
	head := g.gl.Commit(seqProject, files)
	g.gl.Push(seqProject, 1, g.base, head, 0)
	pr := bot.PullRequest{Host: "gitlab", Repo: seqPath, RepoID: seqProject, Number: 1, HeadSHA: head, BaseRef: "main",
		URL: "https://gitlab.example/shop/platform/-/merge_requests/1"}
	if err := g.rv.Review(context.Background(), g.host, pr); err != nil {
		g.t.Fatalf("push %d: %v", g.n, err)
	}
}

// threads are the bot's discussions (not the summary), keyed by thread
// key; a key twice is an error.
func (g *seqRig) threads() map[string]fakegitlab.Discussion {
	g.t.Helper()
	out := map[string]fakegitlab.Discussion{}
	for _, d := range g.gl.Discussions(seqProject, 1) {
		n := d.Notes[0]
		if n.Author.ID != g.gl.User.ID || strings.Contains(n.Body, "prodready:summary") {
			continue
		}
		k := bot.ThreadKey(n.Body)
		if _, dup := out[k]; dup {
			g.t.Errorf("push %d: two discussions for %s", g.n, k)
		}
		out[k] = d
	}
	return out
}

// summaryID is the id of the summary note.
func (g *seqRig) summaryID() int64 {
	for _, d := range g.gl.Discussions(seqProject, 1) {
		if strings.Contains(d.Notes[0].Body, "prodready:summary") {
			return d.Notes[0].ID
		}
	}
	return -1
}

func seqByRule(ts map[string]fakegitlab.Discussion, what string) (fakegitlab.Discussion, bool) {
	for _, d := range ts {
		first, _, _ := strings.Cut(d.Notes[0].Body, "\n")
		if strings.Contains(first, what) {
			return d, true
		}
	}
	return fakegitlab.Discussion{}, false
}

// calls counts the calls with method whose path ends with suffix and, when
// resolved is not "", that set resolved to it.
func (g *seqRig) calls(method, suffix, resolved string) int {
	n := 0
	for _, c := range g.gl.Calls() {
		if c.Method != method || !strings.HasSuffix(c.Path, suffix) && !strings.Contains(c.Path, suffix+"/") {
			continue
		}
		if resolved != "" && c.Query.Get("resolved") != resolved && !strings.Contains(c.Body, `"resolved":`+resolved) {
			continue
		}
		n++
	}
	return n
}

// TestThreadsAcrossPushesGitLab is the push sequence of the issue on
// GitLab: add a Deployment, fix its error, break it again, break it
// another way (the finding's text changes), a person resolves a thread,
// move the object to another file, reformat the file. After each push it
// checks the discussions: how many, where they are anchored, resolved or
// not, none twice, none posted again; a returning finding reopens its
// discussion (PUT …/discussions/:id resolved=false) and a changed text
// edits the first note (PUT …/notes/:id).
func TestThreadsAcrossPushesGitLab(t *testing.T) {
	base := map[string]string{"deploy/web.yaml": seqWeb, "deploy/pdb.yaml": seqPDB, ".prodready.yaml": seqRules}
	g := newSeqRig(t, base)
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
	const probe, container = "probe-named-port-undeclared", "container `api`"
	check := func(step string, resolved map[string]bool) map[string]fakegitlab.Discussion {
		t.Helper()
		ts := g.threads()
		if len(ts) != 2 {
			t.Errorf("%s: %d discussions, want 2", step, len(ts))
		}
		for what, want := range resolved {
			d, ok := seqByRule(ts, what)
			if !ok {
				t.Errorf("%s: no discussion about %s", step, what)
				continue
			}
			if !d.Notes[0].Resolvable || d.Notes[0].Resolved != want {
				t.Errorf("%s: discussion about %s resolvable %v resolved %v, want resolved %v", step, what, d.Notes[0].Resolvable, d.Notes[0].Resolved, want)
			}
			if len(d.Notes) != 1 {
				t.Errorf("%s: discussion about %s has %d notes, want the bot's one (no reply)", step, what, len(d.Notes))
			}
		}
		return ts
	}
	posts := func() int { return g.calls("POST", "/merge_requests/1/discussions", "") }

	// 1. Add: the error's discussion on its line, the container's two
	// warnings one discussion on its "- name:" line, the info in the
	// summary only.
	api := seqAPI("metrics", false)
	g.push(with(map[string]string{"deploy/api.yaml": api}))
	ts := check("add", map[string]bool{probe: false, container: false})
	if d, _ := seqByRule(ts, probe); d.Notes[0].Position == nil || d.Notes[0].Position.NewPath != "deploy/api.yaml" || *d.Notes[0].Position.NewLine != lineNo(t, api, "              port: metrics") {
		t.Errorf("add: the error's discussion is at %+v, want deploy/api.yaml on the port line", d.Notes[0].Position)
	}
	if d, _ := seqByRule(ts, container); d.Notes[0].Position == nil || *d.Notes[0].Position.NewLine != lineNo(t, api, "        - name: api") ||
		!strings.Contains(d.Notes[0].Body, "`cpu-requests-missing`") || !strings.Contains(d.Notes[0].Body, "`memory-requests-missing`") || strings.Contains(d.Notes[0].Body, probe) {
		t.Errorf("add: the container's discussion is at %+v, or not about its two warnings only:\n%s", d.Notes[0].Position, d.Notes[0].Body)
	}
	for _, d := range ts {
		if strings.Contains(d.Notes[0].Body, "recommended-labels-missing") {
			t.Errorf("add: an info finding is inline:\n%s", d.Notes[0].Body)
		}
	}
	posted := posts()
	if posted != 2 {
		t.Errorf("add: %d discussions posted, want 2", posted)
	}

	// 2. Fix the error: its discussion is resolved, the other kept.
	g.push(with(map[string]string{"deploy/api.yaml": seqAPI("8080", false)}))
	check("fix", map[string]bool{probe: true, container: false})
	if n := posts(); n != posted {
		t.Errorf("fix: %d discussions posted, want none", n-posted)
	}

	// 3. Break it again: the resolved discussion is reopened, not posted
	// again.
	reopens := g.calls("PUT", "/discussions", "false")
	g.push(with(map[string]string{"deploy/api.yaml": api}))
	ts = check("break again", map[string]bool{probe: false, container: false})
	if n := posts(); n != posted {
		t.Errorf("break again: %d discussions posted, want none", n-posted)
	}
	if n := g.calls("PUT", "/discussions", "false"); n != reopens+1 {
		t.Errorf("break again: %d PUT discussions resolved=false, want 1", n-reopens)
	}

	// 3b. Break it another way: same identity, another message. The first
	// note is edited in place.
	before, _ := seqByRule(ts, probe)
	edits := g.calls("PUT", "/notes", "") - g.calls("PUT", fmt.Sprintf("/notes/%d", g.summaryID()), "")
	g.push(with(map[string]string{"deploy/api.yaml": seqAPI("admin", false)}))
	ts = check("break differently", map[string]bool{probe: false, container: false})
	if n := posts(); n != posted {
		t.Errorf("break differently: %d discussions posted, want none", n-posted)
	}
	after, _ := seqByRule(ts, probe)
	if n := g.calls("PUT", fmt.Sprintf("/notes/%d", before.Notes[0].ID), ""); n != 1 || after.ID != before.ID || !strings.Contains(after.Notes[0].Body, `port "admin"`) || strings.Contains(after.Notes[0].Body, `port "metrics"`) {
		t.Errorf("break differently: %d PUT of note %d (discussion %s, now %s), want its body edited in place to name port admin:\n%s", n, before.Notes[0].ID, before.ID, after.ID, after.Notes[0].Body)
	}
	if n := g.calls("PUT", "/notes", "") - g.calls("PUT", fmt.Sprintf("/notes/%d", g.summaryID()), ""); n != edits+1 {
		t.Errorf("break differently: %d notes edited besides the summary, want 1", n-edits)
	}
	g.push(with(map[string]string{"deploy/api.yaml": api}))
	check("back to metrics", map[string]bool{probe: false, container: false})

	// A person resolves the container's discussion; its findings are still
	// there.
	d, _ := seqByRule(g.threads(), container)
	g.gl.SetResolved(seqProject, 1, d.ID, true)

	// 4. Move the Deployment to another file: the same discussions, none
	// posted, the resolved one reopened.
	reopens = g.calls("PUT", "/discussions", "false")
	g.push(with(map[string]string{"deploy/apps/api.yaml": api}))
	check("move", map[string]bool{probe: false, container: false})
	if n := posts(); n != posted {
		t.Errorf("move: %d discussions posted, want none", n-posted)
	}
	if n := g.calls("PUT", "/discussions/"+d.ID, "false"); n != 1 || g.calls("PUT", "/discussions", "false") != reopens+1 {
		t.Errorf("move: the discussion a person resolved was reopened %d times, want once", n)
	}
	if g.calls("PUT", "/discussions", "true") != 1 {
		t.Errorf("move: %d discussions resolved in all, want only the fixed error's at push 2", g.calls("PUT", "/discussions", "true"))
	}

	// 5. Reformat the file: still the same discussions.
	g.push(with(map[string]string{"deploy/apps/api.yaml": seqAPI("metrics", true)}))
	check("reformat", map[string]bool{probe: false, container: false})
	if n := posts(); n != posted {
		t.Errorf("reformat: %d discussions posted, want none", n-posted)
	}
	var summaries int
	for _, d := range g.gl.Discussions(seqProject, 1) {
		if strings.Contains(d.Notes[0].Body, "prodready:summary") {
			summaries++
		}
	}
	if summaries != 1 {
		t.Errorf("%d summary notes, want one edited in place", summaries)
	}
}

// lineNo is the 1-based line of src that is exactly text.
func lineNo(t *testing.T, src, text string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if l == text {
			return i + 1
		}
	}
	t.Fatalf("no line %q", text)
	return 0
}

// TestUnreadableBlobIsNamedAndTheReviewGoesOnGitLab: GitLab answers 404
// for the blob of a file the merge request does not touch. The review
// still publishes, and the summary note names the file with why it was
// not checked.
func TestUnreadableBlobIsNamedAndTheReviewGoesOnGitLab(t *testing.T) {
	base := map[string]string{"deploy/web.yaml": seqWeb, "deploy/pdb.yaml": seqPDB}
	g := newSeqRig(t, base)
	gone := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(seqPDB), seqPDB))))
	g.gl.Fail("GET", fmt.Sprintf("/projects/%d/repository/blobs/%s", seqProject, gone), http.StatusNotFound, 100)
	head := map[string]string{"deploy/api.yaml": seqAPI("metrics", false)}
	for k, v := range base {
		head[k] = v
	}
	g.push(head)
	var summary string
	for _, d := range g.gl.Discussions(seqProject, 1) {
		if strings.Contains(d.Notes[0].Body, "prodready:summary") {
			summary = d.Notes[0].Body
		}
	}
	if !strings.Contains(summary, "deploy/pdb.yaml") || !strings.Contains(summary, "could not be read: GitLab answered 404") {
		t.Errorf("the unreadable file is not named with why:\n%s", summary)
	}
	if len(g.threads()) == 0 {
		t.Error("the changed file was not reviewed")
	}
}
