package main

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// hostileCharts are charts whose render would take the machine: each must
// end as one finding on its chart, and nothing else.
var hostileCharts = map[string]string{
	"charts/mem/Chart.yaml":           "apiVersion: v2\nname: mem\nversion: 0.1.0\n",
	"charts/mem/templates/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mem\ndata:\n  a: {{ repeat 200000 (repeat 100000 \"A\") | quote }}\n",
	"charts/cpu/Chart.yaml":           "apiVersion: v2\nname: cpu\nversion: 0.1.0\n",
	"charts/cpu/templates/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cpu\ndata:\n{{- range $i := until 100000 }}{{ range $j := until 100000 }}{{ end }}{{ end }}\n  a: b\n",
	"charts/loop/Chart.yaml":          "apiVersion: v2\nname: loop\nversion: 0.1.0\n",
	"charts/loop/templates/_h.tpl":    "{{ define \"loop\" }}{{ include \"loop\" . }}{{ end }}\n",
	"charts/loop/templates/cm.yaml":   "{{ include \"loop\" . }}\n",
	"charts/many/Chart.yaml":          "apiVersion: v2\nname: many\nversion: 0.1.0\n",
	"charts/many/templates/cm.yaml":   "{{- range $i := until 100000 }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-{{ $i }}\n{{- end }}\n",
	"deploy/alias/kustomization.yaml": "resources:\n- laughs.yaml\n",
	"deploy/alias/laughs.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: laughs}\ndata:\n  a: &a [x,x,x,x,x,x,x,x,x,x]\n  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n  h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]\n  i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h,*h]\n",
}

// TestServeSurvivesHostileRenders runs `prodready serve` as a process under
// a 512 MiB data limit (deploy/'s pod), with the render limits its flags
// set, on a pull request that adds charts and an overlay built to take the
// machine: a 20 GB string, ten billion loop turns, endless include, a YAML
// alias bomb, 100,000 documents. Each is a render-failed finding on its own chart or overlay;
// the plain manifest's finding is still posted inline; the server stays
// ready, and reviews the next pull request.
func TestServeSurvivesHostileRenders(t *testing.T) {
	if testing.Short() {
		t.Skip("renders charts built to run away, in serve; skipped with -short")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is not installed: it sets serve's memory limit")
	}
	const secret = "hostile-secret"
	fake, keyFile, secretFile := fakeApp(t, secret)
	config := testconfig.OnlyRule("probe-named-port-undeclared")
	base := map[string]string{"deploy/app.yaml": replicaManifest("8080"), ".prodready.yaml": config}
	head := map[string]string{"deploy/app.yaml": replicaManifest("metrics"), ".prodready.yaml": config}
	for p, data := range hostileCharts {
		head[p] = data
	}
	fake.AddCommit("acme", "web", replicaBase, base)
	fake.AddCommit("acme", "web", headSHA(0), head)
	fake.AddCommit("acme", "web", headSHA(1), map[string]string{"deploy/app.yaml": replicaManifest("metrics1"), ".prodready.yaml": config})
	fake.SetPR("acme", "web", 1, replicaBase, headSHA(0))
	fake.SetPR("acme", "web", 2, replicaBase, headSHA(1))

	r := startReplicaUnder(t, "serve", []string{prlimit, "--data=536870912"}, []string{
		"--github-app-id", "1", "--github-private-key-file", keyFile, "--github-webhook-secret-file", secretFile,
		"--github-base-url", fake.URL, "--github-bot-login", fakegithub.BotLogin,
		"--data-dir", filepath.Join(t.TempDir(), "nats"),
		"--render-memory", "268435456", "--render-cpu", "4s", "--render-deadline", "60s"})
	if code := r.deliver(t, secret, "hostile-1", prBody(1, "opened", headSHA(0))); code != http.StatusAccepted {
		t.Fatalf("delivery: status %d, want 202", code)
	}
	waitFor(t, "the hostile pull request's check run completed", func() bool {
		for _, run := range fake.CheckRuns("acme", "web") {
			if run.HeadSHA == headSHA(0) && run.Status == "completed" {
				return true
			}
		}
		return false
	})
	var posted strings.Builder
	for _, run := range fake.CheckRuns("acme", "web") {
		posted.WriteString(run.Summary + "\n" + run.Text + "\n")
		for _, a := range run.Annotations {
			posted.WriteString(a.Path + ": " + a.Message + "\n")
		}
	}
	inline := 0
	for _, rv := range fake.Reviews("acme", "web") {
		posted.WriteString(rv.Body + "\n")
		for _, c := range rv.Comments {
			posted.WriteString(c.Path + ": " + c.Body + "\n")
			if c.Path == "deploy/app.yaml" {
				inline++
			}
		}
	}
	text := posted.String()
	for _, want := range []string{"charts/mem/Chart.yaml", "memory limit of 256 MiB", "charts/cpu/Chart.yaml", "CPU-time limit of 4s", "charts/loop", "deploy/alias/kustomization.yaml", "charts/many/Chart.yaml"} {
		if !strings.Contains(text, want) {
			t.Errorf("the check run and review do not name %q:\n%s", want, text)
		}
	}
	// 100,000 documents are one problem on their chart (its bound, or the
	// CPU limit this test sets low), not one per document dropped.
	if n := strings.Count(text, "the chart charts/many "); n < 1 || n > 4 {
		t.Errorf("charts/many is reported %d times, want one finding (in the comment, its details and the annotation):\n%s", n, text)
	}
	if inline != 1 {
		t.Errorf("%d inline comments on deploy/app.yaml, want its one finding", inline)
	}
	select {
	case <-r.done:
		t.Fatalf("serve exited:\n%s", lastLines(r.logs(), 30))
	default:
	}
	resp, err := http.Get("http://" + r.addr + "/readyz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("serve is not ready after the hostile renders: %v %v", resp, err)
	}
	resp.Body.Close()
	// The next pull request is reviewed as usual.
	if code := r.deliver(t, secret, "after-1", prBody(2, "opened", headSHA(1))); code != http.StatusAccepted {
		t.Fatalf("delivery: status %d, want 202", code)
	}
	waitFor(t, "the next pull request's check run completed", func() bool {
		for _, run := range fake.CheckRuns("acme", "web") {
			if run.HeadSHA == headSHA(1) && run.Status == "completed" {
				return true
			}
		}
		return false
	})
}
