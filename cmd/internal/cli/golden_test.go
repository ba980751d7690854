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
	root := writeTree(t, files)
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
