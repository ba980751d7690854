package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/report"
)

var update = flag.Bool("update", false, "rewrite testdata/demo's golden reports from the current output")

// TestDemoReportsMatchGolden runs prodready check on the README's demo
// (fixtures/demo) in every format and compares each report with its golden
// file in testdata/demo (go test ./cmd/internal/cli -run TestDemoReports
// -update rewrites them). It runs in a copy of the demo in a repository of
// its own, with a set version, so that nothing in the reports depends on
// the machine, the checkout or the build: no absolute path, no config of
// the repository's, no version drift. The SARIF log keeps the rules its
// results name, not the whole catalog (see sarifWithRulesUsed).
func TestDemoReportsMatchGolden(t *testing.T) {
	demo := filepath.Join("..", "..", "..", "fixtures", "demo")
	golden, err := filepath.Abs(filepath.Join("testdata", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	entries, err := os.ReadDir(demo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(demo, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files["fixtures/demo/"+e.Name()] = string(data)
	}
	root := checkstest.WriteTree(t, files)
	t.Chdir(root)
	summary := filepath.Join(t.TempDir(), "step-summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)

	outputs := map[string]string{}
	for _, format := range report.Formats {
		var out, errb bytes.Buffer
		p := Program{Name: "prodready", Version: "v1.2.3-golden"}
		if code := p.Run([]string{"check", "--format", format, "fixtures/demo"}, strings.NewReader(""), &out, &errb); code != ExitFindings {
			t.Fatalf("--format %s: exit %d, want %d (the demo has errors): %s", format, code, ExitFindings, errb.String())
		}
		got := out.String()
		if format == "sarif" {
			got = sarifWithRulesUsed(t, got)
		}
		outputs[format+".golden"] = got
	}
	data, err := os.ReadFile(summary)
	if err != nil {
		t.Fatalf("--format github wrote no step summary: %v", err)
	}
	outputs["github-step-summary.md.golden"] = string(data)

	if len(outputs) != len(report.Formats)+1 {
		t.Fatalf("%d outputs for %d formats", len(outputs), len(report.Formats))
	}
	for name, got := range outputs {
		if strings.Contains(got, root) || strings.Contains(got, filepath.Dir(summary)) {
			t.Errorf("%s holds an absolute path of this machine", name)
		}
		path := filepath.Join(golden, name)
		if *update {
			if err := os.MkdirAll(golden, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (go test ./cmd/internal/cli -run TestDemoReportsMatchGolden -update writes it)", err)
			continue
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s differs from the golden report (-want +got; -update rewrites it if the change is meant):\n%s", name, diff)
		}
	}
}

// sarifWithRulesUsed is a SARIF log with its rules array cut to the rules
// its results name and each ruleIndex pointing into the cut array, encoded
// again (keys sorted): the whole catalog would make every rule's edit a
// change of this golden file, and other tests hold the whole array to the
// catalog (checks/report's TestSARIF*) and the log's bytes to the streamed
// encoding (TestStreamMatchesWrite).
func sarifWithRulesUsed(t *testing.T, log string) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(log), &doc); err != nil {
		t.Fatalf("sarif: %v", err)
	}
	run := doc["runs"].([]any)[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	rules := driver["rules"].([]any)
	results := run["results"].([]any)
	used := map[int]bool{}
	for _, r := range results {
		used[int(r.(map[string]any)["ruleIndex"].(float64))] = true
	}
	var kept []any
	index := map[int]int{}
	for i, r := range rules {
		if used[i] {
			index[i] = len(kept)
			kept = append(kept, r)
		}
	}
	driver["rules"] = kept
	for _, r := range results {
		m := r.(map[string]any)
		m["ruleIndex"] = index[int(m["ruleIndex"].(float64))]
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out) + "\n"
}

// TestTextVariantsMatchGolden holds the text report's variants to their
// golden files in testdata/text (-update rewrites them): files not
// checked summarised by reason, three names each and a count of the rest
// (not-checked.golden), every name with -v (verbose.golden), colour when
// asked for (color.golden: FORCE_COLOR, as on a terminal), and a
// pre-commit file list inside an overlay, whose other files' findings are
// left out (pre-commit.golden), and findings that would print the same
// told apart by their object and their message's end (alike.golden).
func TestTextVariantsMatchGolden(t *testing.T) {
	demo := filepath.Join("..", "..", "..", "fixtures", "demo")
	golden, err := filepath.Abs(filepath.Join("testdata", "text"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for _, name := range []string{"deployment.yaml", "service.yaml"} {
		data, err := os.ReadFile(filepath.Join(demo, name))
		if err != nil {
			t.Fatal(err)
		}
		files["demo/"+name] = string(data)
	}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files["demo/notes/"+n+".yaml"] = "owner: shop-team\n"
	}
	files["demo/empty.yaml"] = "# nothing yet\n"
	files["overlay/kustomization.yaml"] = "resources:\n- web.yaml\n- worker.yaml\n"
	files["overlay/web.yaml"] = badProbe
	files["overlay/worker.yaml"] = strings.ReplaceAll(badProbe, "web", "worker")
	// One template line renders two Deployments, and a values set gives
	// one of them another image: lines that would read the same name their
	// object, and keep the end that names the values sets.
	files["chart/Chart.yaml"] = "apiVersion: v2\nname: chart\nversion: 1.0.0\n"
	files["chart/values.yaml"] = "apps: [web, api]\ntag: latest\n"
	files["chart/ci/pinned-values.yaml"] = "apps: [web, api]\ntag: latest\nprivileged: true\n"
	files["chart/templates/apps.yaml"] = `{{- range .Values.apps }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ . }}
spec:
  replicas: 2
  selector:
    matchLabels: {app: {{ . }}}
  template:
    metadata:
      labels: {app: {{ . }}}
    spec:
      containers:
        - name: app
          image: ghcr.io/acme/app:{{ $.Values.tag }}
          securityContext:
            privileged: {{ $.Values.privileged | default false }}
{{- end }}
`
	t.Chdir(checkstest.WriteTree(t, files))
	t.Setenv("NO_COLOR", "")
	t.Setenv("FORCE_COLOR", "")

	runs := []struct {
		name  string
		args  []string
		color bool
	}{
		{"not-checked.golden", []string{"check", "demo"}, false},
		{"verbose.golden", []string{"check", "-v", "demo"}, false},
		{"color.golden", []string{"check", "demo"}, true},
		{"pre-commit.golden", []string{"check", "overlay/web.yaml"}, false},
		{"alike.golden", []string{"check", "--fail-on", "warning", "chart"}, false},
	}
	for _, r := range runs {
		if r.color {
			t.Setenv("FORCE_COLOR", "1")
		} else {
			t.Setenv("FORCE_COLOR", "")
		}
		var out, errb bytes.Buffer
		p := Program{Name: "prodready", Version: "v1.2.3-golden", Render: render.InProcess}
		if code := p.Run(r.args, strings.NewReader(""), &out, &errb); code != ExitFindings {
			t.Fatalf("%v: exit %d, want %d: %s", r.args, code, ExitFindings, errb.String())
		}
		got := out.String()
		if has := strings.Contains(got, "\033["); has != r.color {
			t.Errorf("%s: colour %v, want %v", r.name, has, r.color)
		}
		path := filepath.Join(golden, r.name)
		if *update {
			if err := os.MkdirAll(golden, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (go test ./cmd/internal/cli -run TestTextVariantsMatchGolden -update writes it)", err)
			continue
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s differs from the golden report (-want +got; -update rewrites it if the change is meant):\n%s", r.name, diff)
		}
	}
}
