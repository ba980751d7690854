package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// The package's tests run check in the test process (deploy_test.go) beside
// servers they reach through http.DefaultTransport: there denyNetwork must
// not close the process for the tests after it. The test binary started as
// prodready (asMain) keeps the real one.
func init() {
	if os.Getenv(asMain) != "1" {
		denyNetwork = func() {}
	}
}

// countingServer is a loopback HTTP server that counts the requests it
// receives; it answers what a metadata service would.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\ndata: {token: from-the-metadata-service}\n"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestServeRendersNoURLOfAPullRequest runs serve against the fake GitHub on
// a pull request that adds an overlay whose patch and configMapGenerator
// file are URLs on a loopback server: the server receives nothing, and the
// check run and review name the refused fields.
func TestServeRendersNoURLOfAPullRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	srv, hits := countingServer(t)
	const secret = "offline-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	config := testconfig.OnlyRule("probe-named-port-undeclared")
	base := map[string]string{"deploy/app.yaml": replicaManifest("8080"), ".prodready.yaml": config}
	head := map[string]string{
		"deploy/app.yaml": replicaManifest("8080"), ".prodready.yaml": config,
		"deploy/overlay/kustomization.yaml": "resources:\n- cm.yaml\npatches:\n- path: " + srv.URL + "/patch.yaml\nconfigMapGenerator:\n- name: leak\n  files:\n  - token=" + srv.URL + "/latest/meta-data\n",
		"deploy/overlay/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
	}
	fake.AddCommit("acme", "web", replicaBase, base)
	fake.AddCommit("acme", "web", headSHA(0), head)
	fake.SetPR("acme", "web", 1, replicaBase, headSHA(0))

	args := []string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(t.TempDir(), "nats")}
	r := startReplica(t, "serve", args)
	if code := r.deliver(t, secret, "offline-1", prBody(1, "opened", headSHA(0))); code != http.StatusAccepted {
		t.Fatalf("delivery: status %d, want 202", code)
	}
	waitFor(t, "the check run completed", func() bool {
		runs := fake.CheckRuns("acme", "web")
		return len(runs) == 1 && runs[0].Status == "completed"
	})
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server received %d requests from serve", n)
	}
	run := fake.CheckRuns("acme", "web")[0]
	var posted strings.Builder
	posted.WriteString(run.Summary + "\n" + run.Text + "\n")
	for _, a := range run.Annotations {
		posted.WriteString(a.Message + "\n")
	}
	for _, rv := range fake.Reviews("acme", "web") {
		posted.WriteString(rv.Body + "\n")
		for _, c := range rv.Comments {
			posted.WriteString(c.Body + "\n")
		}
	}
	// Bodies escape Markdown's brackets (internal/inert): read them as text.
	text := strings.NewReplacer(`\[`, "[", `\]`, "]").Replace(posted.String())
	for _, want := range []string{"patches[0].path", "configMapGenerator[0].files[0]", "renders are offline"} {
		if !strings.Contains(text, want) {
			t.Errorf("the check run and review do not name %q:\n%s", want, posted.String())
		}
	}
	if strings.Contains(posted.String(), "from-the-metadata-service") {
		t.Errorf("the review quotes what the loopback server answers")
	}
	if run.Conclusion != "failure" {
		t.Errorf("check run concluded %q, want failure (render-failed is an error)", run.Conclusion)
	}
}
