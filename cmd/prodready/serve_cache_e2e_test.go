package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
)

// TestServeCachedReviewsEqualUncached runs two `serve` processes, each
// against its own fake GitHub holding the same repository (plain
// manifests that select each other, a Helm chart, a kustomize overlay):
// one with its caches (blobs, parses, the rules' findings, base runs,
// renders), one with every cache at 0 bytes. One pull request gets three
// pushes: the first changes a Deployment and the chart's values; the
// second changes one more file, a PodDisruptionBudget that another,
// unchanged Deployment loses (a finding new in a file the pull request
// does not touch: a rule that reads other objects must be run again); the
// third changes the overlay's patch. Each push's check run (conclusion,
// title, summary, annotations) and review (body, inline comments) is the
// same from both, and the cached replica says it reused the base's run.
func TestServeCachedReviewsEqualUncached(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two serve processes; skipped with -short")
	}
	base := cacheRepo(t)
	heads := []map[string]string{with(base, map[string]string{
		"apps/a.yaml":            strings.Replace(base["apps/a.yaml"], "nginx:1.27", "nginx:1.28", 1),
		"charts/web/values.yaml": base["charts/web/values.yaml"] + "\n# one more line\n",
	})}
	heads = append(heads, with(heads[0], map[string]string{
		"apps/pdb.yaml": strings.Replace(base["apps/pdb.yaml"], "app: b", "app: gone", 1),
	}))
	heads = append(heads, with(heads[1], map[string]string{
		"kustomize/overlays/prod/replicas-patch.yaml": strings.Replace(base["kustomize/overlays/prod/replicas-patch.yaml"], "replicas: 3", "replicas: 1", 1),
	}))
	if heads[1]["apps/pdb.yaml"] == base["apps/pdb.yaml"] || heads[2]["kustomize/overlays/prod/replicas-patch.yaml"] == base["kustomize/overlays/prod/replicas-patch.yaml"] {
		t.Fatal("a push changes nothing: the fixtures changed under the test")
	}

	const secret = "cache-secret"
	type side struct {
		fake *fakegithub.Server
		r    *replica
	}
	start := func(name string, extra ...string) side {
		fake, keyFile, secretFile := fakeApp(t, secret)
		fake.AddCommit("acme", "web", replicaBase, base)
		for i, files := range heads {
			fake.AddCommit("acme", "web", headSHA(i), files)
		}
		fake.SetPR("acme", "web", 1, replicaBase, headSHA(0))
		args := append([]string{"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
			"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
			"--data-dir", filepath.Join(t.TempDir(), "nats"), "--queue-backoff", "100ms"}, extra...)
		return side{fake, startReplica(t, name, args)}
	}
	cached := start("cached")
	plain := start("uncached", "--cache-bytes", "0", "--render-cache-bytes", "0")

	for i := range heads {
		head := headSHA(i)
		for _, s := range []side{cached, plain} {
			s.fake.SetPR("acme", "web", 1, replicaBase, head)
			action := "synchronize"
			if i == 0 {
				action = "opened"
			}
			if code := s.r.deliver(t, secret, fmt.Sprintf("push-%d", i), prBody(1, action, head)); code != 202 {
				t.Fatalf("%s: push %d answered %d", s.r.name, i, code)
			}
		}
		for _, s := range []side{cached, plain} {
			waitFor(t, fmt.Sprintf("%s: push %d's check run completed", s.r.name, i), func() bool {
				run, ok := runOn(s.fake, head)
				return ok && run.Status == "completed"
			})
		}
		got, _ := runOn(cached.fake, head)
		want, _ := runOn(plain.fake, head)
		if got.Conclusion != want.Conclusion || got.Title != want.Title {
			t.Errorf("push %d: cached %s %q, uncached %s %q", i, got.Conclusion, got.Title, want.Conclusion, want.Title)
		}
		if got.Summary != want.Summary {
			t.Errorf("push %d: the summaries differ:\ncached:\n%s\nuncached:\n%s", i, got.Summary, want.Summary)
		}
		if g, w := fmt.Sprint(got.Annotations), fmt.Sprint(want.Annotations); g != w {
			t.Errorf("push %d: the annotations differ:\ncached:   %s\nuncached: %s", i, g, w)
		}
		if g, w := reviewsOn(cached.fake, head), reviewsOn(plain.fake, head); g != w {
			t.Errorf("push %d: the reviews differ:\ncached:\n%s\nuncached:\n%s", i, g, w)
		}
		if i == 1 && !strings.Contains(got.Summary, "apps/b.yaml") {
			t.Errorf("push 1: the summary does not name apps/b.yaml, whose Deployment lost its PodDisruptionBudget:\n%s", got.Summary)
		}
	}
	if !strings.Contains(cached.r.logs(), "base run reused from the cache") {
		t.Error("the cached replica never reused the base's run")
	}
	if strings.Contains(plain.r.logs(), "base run reused from the cache") {
		t.Error("the replica without caches reused a base run")
	}
}

// cacheRepo is the repository of TestServeCachedReviewsEqualUncached:
// plain manifests, the fixtures' web chart and kustomize overlay.
func cacheRepo(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{
		"apps/a.yaml": cacheDeployment("a"),
		"apps/b.yaml": cacheDeployment("b"),
		"apps/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  namespace: shop\nspec:\n  selector:\n    app: a\n  ports:\n    - port: 80\n      targetPort: http\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\n  namespace: shop\nspec:\n  selector:\n    app: b\n  ports:\n    - port: 80\n      targetPort: http\n",
		"apps/pdb.yaml": "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: b\n  namespace: shop\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: b\n",
	}
	for from, to := range map[string]string{"../../fixtures/render/helm/web": "charts/web", "../../fixtures/render/kustomize": "kustomize"} {
		err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(from, p)
			files[to+"/"+filepath.ToSlash(rel)] = string(data)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

func cacheDeployment(name string) string {
	return strings.ReplaceAll(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: NAME
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: NAME}
  template:
    metadata:
      labels: {app: NAME}
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
              port: http
`, "NAME", name)
}

// with returns files with changes applied.
func with(files, changes map[string]string) map[string]string {
	out := make(map[string]string, len(files))
	for p, c := range files {
		out[p] = c
	}
	for p, c := range changes {
		out[p] = c
	}
	return out
}

// runOn returns the check run of head.
func runOn(fake *fakegithub.Server, head string) (fakegithub.CheckRun, bool) {
	for _, run := range fake.CheckRuns("acme", "web") {
		if run.HeadSHA == head {
			return run, true
		}
	}
	return fakegithub.CheckRun{}, false
}

// reviewsOn prints the reviews of head: body and inline comments.
func reviewsOn(fake *fakegithub.Server, head string) string {
	var b strings.Builder
	for _, r := range fake.Reviews("acme", "web") {
		if r.CommitID != head {
			continue
		}
		fmt.Fprintf(&b, "review %s: %s\n", r.Event, r.Body)
		for _, c := range r.Comments {
			fmt.Fprintf(&b, "  %s:%d-%d %s\n", c.Path, c.StartLine, c.Line, c.Body)
		}
	}
	return b.String()
}
