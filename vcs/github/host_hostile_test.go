package github_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/internal/testconfig"
)

// claimHugeSize rewrites tree listings so that path claims a 5 GiB size.
func claimHugeSize(path string) func(*http.Response) error {
	return func(resp *http.Response) error {
		if !strings.Contains(resp.Request.URL.Path, "/git/trees/") || resp.StatusCode != http.StatusOK {
			return nil
		}
		var tree map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&tree); err != nil {
			return err
		}
		resp.Body.Close()
		for _, e := range tree["tree"].([]any) {
			if e := e.(map[string]any); e["path"] == path {
				e["size"] = int64(5) << 30
			}
		}
		b, _ := json.Marshal(tree)
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Del("Content-Length")
		return nil
	}
}

// TestHugeClaimedSizeIsNotDownloaded: a tree entry claiming 5 GiB is
// skipped without a blob request; the review completes with the rest.
func TestHugeClaimedSizeIsNotDownloaded(t *testing.T) {
	logs := &lockedLog{}
	p := newProxied(t, claimHugeSize("deploy/other.yaml"), logs, testSuggest)
	setupRepo(p.fake, "acme", "deploys", 7, synthBase, synthHead)
	if err := p.review(t, "big-1", syntheticOpened(t)); err != nil {
		t.Fatal(err)
	}
	blobs := 0
	for _, c := range p.fake.Calls() {
		if strings.Contains(c.Path, "/git/blobs/") {
			blobs++
		}
	}
	if blobs == 0 {
		t.Fatal("no blob read at all: the test proves nothing")
	}
	for _, c := range p.fake.Calls() {
		if strings.Contains(c.Path, "/git/blobs/"+blobOf(untouched)) {
			t.Errorf("downloaded the blob claiming 5 GiB: %s", c)
		}
	}
	runs := p.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Title != "2 new errors" {
		t.Errorf("runs = %+v", runs)
	}
	if !strings.Contains(logs.String(), "manifest too large to load") {
		t.Errorf("the skipped file is not logged:\n%s", logs)
	}
}

// blobOf is git's blob SHA of content, as GitHub (and the fake) name blobs.
func blobOf(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

// TestEndlessBlobIsOneFinding: a blob answer that never ends (a tree
// entry that understates its size, or a hostile proxy) is read up to the
// limit and no further; the file the pull request changes becomes one
// yaml-invalid finding naming the bound, the untouched one a not-checked
// entry, and the review completes.
func TestEndlessBlobIsOneFinding(t *testing.T) {
	p := newProxied(t, nil, &lockedLog{}, testSuggest)
	p.app.Retry().MaxAnswerBytes = 1 << 20
	setupRepo(p.fake, "acme", "deploys", 7, synthBase, synthHead)
	p.fake.AddCommit("acme", "deploys", synthBase, map[string]string{
		"deploy/app.yaml":   deployment("ready", "8080", "8080"),
		"deploy/other.yaml": untouched,
		".prodready.yaml":   testconfig.OnlyRules("probe-named-port-undeclared", "yaml-invalid"),
	})
	var sent atomic.Int64
	p.proxy.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, "/git/blobs/") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"encoding":"base64","content":"`)
		chunk := bytes.Repeat([]byte("QUFB"), 16<<10)
		for sent.Load() < 1<<30 { // stops when the client hangs up
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				break
			}
		}
		return true
	})
	if err := p.review(t, "endless-1", syntheticOpened(t)); err != nil {
		t.Fatalf("review: %v", err)
	}
	runs := p.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "failure" {
		t.Fatalf("runs = %+v", runs)
	}
	found := false
	for _, a := range runs[0].Annotations {
		if a.Path == "deploy/app.yaml" && a.Title == "yaml-invalid" && strings.Contains(a.Message, "over the 1.0 MiB an answer is read to") {
			found = true
		}
	}
	if !found {
		t.Errorf("no yaml-invalid finding naming the bound on the changed file: %+v", runs[0].Annotations)
	}
	if !strings.Contains(runs[0].Summary, "deploy/other.yaml") || !strings.Contains(runs[0].Summary, "could not be read: GitHub's answer for its blob was over the 1.0 MiB") {
		t.Errorf("the untouched file is not named as not checked:\n%s", runs[0].Summary)
	}
	if sent.Load() >= 1<<30 {
		t.Errorf("the client read the whole endless answer")
	}
}

// TestUnknownInstallationFailsCleanly: a signed delivery naming an
// installation GitHub does not know (or that uninstalled the app) is
// accepted (the webhook never calls GitHub before answering), then the
// review fails at the token exchange: no check run anywhere, one error in
// the log, no secret in it. See docs/security.md.
func TestUnknownInstallationFailsCleanly(t *testing.T) {
	logs := &lockedLog{}
	p := newProxied(t, nil, logs, testSuggest)
	setupRepo(p.fake, "acme", "deploys", 7, synthBase, synthHead)
	p.proxy.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/app/installations/") && !strings.HasPrefix(r.URL.Path, "/app/installations/42/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"Not Found"}`)
			return true
		}
		return false
	})
	body := rewrite(t, syntheticOpened(t), func(m map[string]any) { m["installation"] = map[string]any{"id": 999} })
	err := p.review(t, "inst-1", body)
	if err == nil || !strings.Contains(err.Error(), "999") {
		t.Fatalf("review error %v, want the installation's", err)
	}
	if runs := p.fake.CheckRuns("acme", "deploys"); len(runs) != 0 {
		t.Errorf("check runs %+v", runs)
	}
	for _, c := range p.fake.Calls() {
		if strings.HasPrefix(c.Path, "/repos/") {
			t.Errorf("called the repository without a token: %s", c)
		}
	}
	l := logs.String()
	if !strings.Contains(l, "review failed") || strings.Contains(l, testSecret) || strings.Contains(l, "ghs_") || strings.Contains(l, "PRIVATE KEY") {
		t.Errorf("logs:\n%s", l)
	}
}

// TestRepositoryNotOursFailsCleanly: a delivery (signed: it could only be
// a misrouted one) names a repository the installation cannot see: the
// check run cannot be created, nothing is posted anywhere.
func TestRepositoryNotOursFailsCleanly(t *testing.T) {
	p := newProxied(t, nil, &lockedLog{}, testSuggest)
	setupRepo(p.fake, "acme", "deploys", 7, synthBase, synthHead)
	body := rewrite(t, syntheticOpened(t), func(m map[string]any) {
		m["repository"] = map[string]any{"name": "private", "full_name": "victim/private", "owner": map[string]any{"login": "victim"}}
		pr := m["pull_request"].(map[string]any)
		pr["base"].(map[string]any)["repo"] = m["repository"]
	})
	if err := p.review(t, "repo-1", body); err == nil {
		t.Fatal("review of a repository GitHub does not show succeeded")
	}
	if runs := p.fake.CheckRuns("acme", "deploys"); len(runs) != 0 || len(p.fake.CheckRuns("victim", "private")) != 0 {
		t.Errorf("check runs created")
	}
	for _, c := range p.fake.Calls() {
		if c.Method != http.MethodGet && c.Status < 300 && !strings.HasSuffix(c.Path, "/access_tokens") {
			t.Errorf("wrote to GitHub: %s", c)
		}
	}
}

// TestForkPullRequestSameRules: a pull request from a fork is reviewed
// like any other: config from the base (the fork's .prodready.yaml that
// switches the rule off is ignored), same findings, same check run.
func TestForkPullRequestSameRules(t *testing.T) {
	p := newProxied(t, nil, &lockedLog{}, testSuggest)
	setupRepo(p.fake, "acme", "deploys", 7, synthBase, synthHead)
	body := rewrite(t, syntheticOpened(t), func(m map[string]any) {
		head := m["pull_request"].(map[string]any)["head"].(map[string]any)
		head["repo"] = map[string]any{"name": "deploys", "full_name": "mallory/deploys", "owner": map[string]any{"login": "mallory"}}
		head["ref"] = "mallory:main"
	})
	if err := p.review(t, "fork-1", body); err != nil {
		t.Fatal(err)
	}
	runs := p.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 || runs[0].Conclusion != "failure" || runs[0].Title != "2 new errors" || len(p.fake.Reviews("acme", "deploys")) != 1 {
		t.Errorf("fork review differs: runs %+v", runs)
	}
}

// TestAPIPathsCannotEscapeTheRepository reads hostile paths (as a pull
// request's file list or a config setting could name them) through the
// Host: every request stays under the repository's API, or is refused
// before it is sent.
func TestAPIPathsCannotEscapeTheRepository(t *testing.T) {
	p := newProxied(t, nil, &lockedLog{}, testSuggest)
	setupRepo(p.fake, "acme", "deploys", 7, synthBase, synthHead)
	h, err := p.app.Host(42)
	if err != nil {
		t.Fatal(err)
	}
	pr := bot.PullRequest{Repo: "acme/deploys", Number: 7, BaseSHA: synthBase, HeadSHA: synthHead}
	for _, path := range []string{
		"../../../user", "..", "deploy/../../other/repo/contents/x", "/etc/passwd", "//evil.example/x",
		"deploy/%2e%2e/%2e%2e/x", "a\x00b", "deploy/app.yaml?ref=main#", "..%2f..%2fuser",
	} {
		data, err := h.ReadFile(context.Background(), pr, synthHead, path)
		if err == nil && data != nil {
			t.Errorf("ReadFile(%q) returned %d bytes", path, len(data))
		}
	}
	for _, c := range p.fake.Calls() {
		if !strings.HasPrefix(c.Path, "/repos/acme/deploys/") && !strings.HasPrefix(c.Path, "/app/installations/42/") {
			t.Errorf("request left the repository: %s", c)
		}
	}
}
