package scan_test

import (
	"context"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/checks/scan"
)

// TestRenderCutAtItsBoundFails: a chart that renders padding past the
// object bound, then a privileged Pod, makes one render-failed error (not
// one per dropped document), so the run fails; the objects within the
// bound are checked.
func TestRenderCutAtItsBoundFails(t *testing.T) {
	files := rendered.Files{
		"Chart.yaml":             []byte("apiVersion: v2\nname: pad\nversion: 0.1.0\n"),
		"templates/pad.yaml":     []byte("{{- range $i := until 50 }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-{{ $i }}\n{{- end }}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: root\nspec:\n  hostPID: true\n  containers:\n    - name: c\n      image: busybox:1.36\n      securityContext: {privileged: true}\n"),
		"templates/a-first.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\ndata:\n  DB_PASSWORD: hunter2-but-longer\n"),
	}
	inputs := []checks.Input{{Path: "Chart.yaml", Data: files["Chart.yaml"]}}
	cfg := checks.DefaultConfig(catalog.Default())
	ropts := rendered.ConfigOptions(cfg)
	ropts.MaxObjects = 20
	var found []checks.Finding
	out := scan.Run(context.Background(), inputs, []rendered.Folder{{Dir: ".", Files: files}}, cfg, scan.Options{Render: render.InProcess, RenderOptions: &ropts}, func(fs []checks.Finding) {
		found = append(found, fs...)
	})
	var bound []checks.Finding
	withinChecked := false
	for _, f := range found {
		if f.RuleID == checks.RenderFailed {
			bound = append(bound, f)
		}
		if f.RuleID == "configmap-sensitive-data" {
			withinChecked = true
		}
		if f.Object.Kind == "Pod" {
			t.Errorf("a finding on the Pod past the bound: %s", f.Message)
		}
	}
	if len(bound) != 1 || bound[0].Severity != checks.Error || !strings.Contains(bound[0].Message, "past the bound are not checked") {
		t.Fatalf("render-failed findings %+v, want one error saying what is not checked", bound)
	}
	if !cfg.Fails(bound) {
		t.Errorf("a render cut at its bound does not fail the run")
	}
	if !withinChecked || out.Result == nil {
		t.Errorf("the objects within the bound were not checked (configmap-sensitive-data missing on the first ConfigMap)")
	}
}

// TestCollectFindsWhatRunFinds: a review's scan (Collect) and check's
// (Run) are one pipeline: on a chart with values sets, an overlay and plain
// files, they find the same findings, problems included, at the same lines.
func TestCollectFindsWhatRunFinds(t *testing.T) {
	for _, dir := range []string{"helm-sets", "kustomize", "helm-fix", "."} {
		t.Run(dir, func(t *testing.T) {
			var inputs []checks.Input
			for _, root := range []string{"../../fixtures/render/" + dir, "../../fixtures/demo"} {
				files, err := rendered.ReadDir(root)
				if err != nil {
					t.Fatal(err)
				}
				for p, data := range files {
					inputs = append(inputs, checks.Input{Path: path.Join(root, p), Data: data})
				}
			}
			folders := rendered.ReadFolders(inputs, []string{"../../fixtures/render/" + dir})
			sort.Slice(inputs, func(i, j int) bool { return inputs[i].Path < inputs[j].Path })
			cfg := checks.DefaultConfig(catalog.Default())
			o := scan.Options{Render: render.InProcess}
			var streamed []checks.Finding
			scan.Run(context.Background(), inputs, folders, cfg, o, func(fs []checks.Finding) { streamed = append(streamed, fs...) })
			c := scan.Collect(context.Background(), inputs, folders, cfg, o)
			collected := append(append(append(append([]checks.Finding(nil), c.Problems...), c.Plain...), c.Rendered...), c.Unreported...)
			if len(c.Rendered) == 0 {
				t.Fatalf("no finding of a render in %s: the fixture no longer renders", dir)
			}
			if got, want := lines(collected), lines(streamed); got != want {
				t.Errorf("Collect found\n%s\nRun found\n%s", got, want)
			}
		})
	}
}

// TestRunSaysABaseFindingOnce: two overlays build on one base; a finding
// both make at a base line for the same reason is one finding naming both
// overlays, as a review comments once, not one per overlay (findings on
// each overlay's own object, prod-api and staging-api, stay apart).
func TestRunSaysABaseFindingOnce(t *testing.T) {
	root := "../../fixtures/render/review/kustomize"
	inputs := readInputs(t, root)
	cfg := checks.DefaultConfig(catalog.Default())
	var found []checks.Finding
	scan.Run(context.Background(), inputs, rendered.ReadFolders(inputs, []string{root}), cfg, scan.Options{Render: render.InProcess}, func(fs []checks.Finding) { found = append(found, fs...) })
	seen := map[string]int{}
	both := 0
	for _, f := range found {
		text, _, _ := strings.Cut(f.Message, rendered.RenderedFrom)
		seen[fmt.Sprintf("%s:%d %s %s", f.File, f.Line, f.RuleID, text)]++
		if strings.HasSuffix(f.Message, "(rendered from the overlay "+root+"/overlays/prod, the overlay "+root+"/overlays/staging)") {
			both++
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s reported %d times", k, n)
		}
	}
	if both == 0 {
		t.Errorf("no finding names both overlays:\n%s", lines(found))
	}
}

// readInputs returns the files of folder root as inputs, in path order.
func readInputs(t *testing.T, root string) []checks.Input {
	t.Helper()
	files, err := rendered.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var inputs []checks.Input
	for p, data := range files {
		inputs = append(inputs, checks.Input{Path: path.Join(root, p), Data: data})
	}
	sort.Slice(inputs, func(i, j int) bool { return inputs[i].Path < inputs[j].Path })
	return inputs
}

// lines is findings as sorted "file:line rule" lines.
func lines(fs []checks.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s:%d %s", f.File, f.Line, f.RuleID))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestRenderedFindingsAtTheirColumns: a finding of a chart or overlay is
// placed at the column the line it is moved to writes its key at (the
// line its verified fix edits, for a fix in values.yaml), as a plain
// manifest's finding is, not at column 1; on an overlay's base, at the
// very column the base file checked alone puts it.
func TestRenderedFindingsAtTheirColumns(t *testing.T) {
	cfg := checks.DefaultConfig(catalog.Default())
	run := func(root string, rendering bool) []checks.Finding {
		t.Helper()
		inputs := readInputs(t, root)
		var folders []rendered.Folder
		if rendering {
			folders = rendered.ReadFolders(inputs, []string{root})
		}
		var found []checks.Finding
		scan.Run(context.Background(), inputs, folders, cfg, scan.Options{Render: render.InProcess, VerifyFixes: true}, func(fs []checks.Finding) { found = append(found, fs...) })
		return found
	}
	indented, placed := 0, 0
	for _, dir := range []string{"kustomize/base", "kustomize/overlays/prod", "helm-fix", "helm-sets", "helm/web"} {
		root := "../../fixtures/render/" + dir
		for _, f := range run(root, true) {
			if f.RuleID == checks.RenderFailed || !strings.Contains(f.Message, rendered.RenderedFrom) {
				continue
			}
			data, err := os.ReadFile(f.File)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(data), "\n")
			if f.Line < 1 || f.Line > len(lines) {
				t.Errorf("%s:%d %s: past the file's %d lines", f.File, f.Line, f.RuleID, len(lines))
				continue
			}
			if want := rendered.WrittenColumn([]byte(lines[f.Line-1])); f.Column != want {
				t.Errorf("%s:%d:%d %s, want column %d (%q)", f.File, f.Line, f.Column, f.RuleID, want, lines[f.Line-1])
			}
			if f.Column > 1 {
				indented++
			}
			if f.Fix != nil && len(f.Fix.Edits) > 0 {
				placed++ // moved to the line its verified fix edits
			}
		}
	}
	if indented < 10 || placed < 3 {
		t.Errorf("%d findings on indented lines, %d at the line their fix edits, want at least 10 and 3: the fixtures no longer test columns", indented, placed)
	}

	// The base checked alone, as plain files, and as an overlay.
	root := "../../fixtures/render/kustomize/base"
	plain := map[string]int{}
	for _, f := range run(root, false) {
		plain[fmt.Sprintf("%s:%d %s", f.File, f.Line, f.RuleID)] = f.Column
	}
	same := 0
	for _, f := range run(root, true) {
		col, ok := plain[fmt.Sprintf("%s:%d %s", f.File, f.Line, f.RuleID)]
		if !ok || f.RuleID == checks.RenderFailed {
			continue
		}
		if f.Column != col {
			t.Errorf("%s:%d %s at column %d as rendered, %d as a plain file", f.File, f.Line, f.RuleID, f.Column, col)
		}
		same++
	}
	if same < 5 {
		t.Errorf("%d findings at the same lines as rendered and plain, want at least 5", same)
	}
}

// TestRunHandsAFilesFindingsOverTogether: the findings of one file come
// together and in line order, though they come from several places: two
// values sets that render the same chart only in part (each turns on
// another dependency not vendored, on Chart.yaml, and both break a
// template, on its line), each set's problems in turn, and the chart's
// rendered objects mapped back to its template. A plain file no render
// touches streams as the run makes its findings, before the chart's are
// handed over.
func TestRunHandsAFilesFindingsOverTogether(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := path.Join(root, name)
		if err := os.MkdirAll(path.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: dep\n    version: 1.0.0\n    repository: https://charts.example.com\n    condition: dep.enabled\n  - name: other\n    version: 1.0.0\n    repository: https://charts.example.com\n    condition: other.enabled\n")
	write("app/values.yaml", "dep:\n  enabled: false\nother:\n  enabled: false\nname: web\n")
	write("app/ci/a-values.yaml", "dep:\n  enabled: true\nname: \"\"\n")
	write("app/ci/b-values.yaml", "other:\n  enabled: true\nname: \"\"\n")
	write("app/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ required \"name is required\" .Values.name }}\ndata:\n  DB_PASSWORD: hunter2-but-longer\n")
	write("app/templates/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Values.name }}\nspec:\n  containers:\n    - name: c\n      image: busybox\n")
	write("plain/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: plain\nspec:\n  containers:\n    - name: c\n      image: busybox\n")
	inputs := readInputs(t, root)
	cfg := checks.DefaultConfig(catalog.Default())
	var batches [][]checks.Finding
	scan.Run(context.Background(), inputs, rendered.ReadFolders(inputs, []string{root}), cfg, scan.Options{Render: render.InProcess}, func(fs []checks.Finding) {
		batches = append(batches, append([]checks.Finding(nil), fs...))
	})
	var found []checks.Finding
	lastPlain, firstChart := -1, -1
	for i, b := range batches {
		for _, f := range b {
			found = append(found, f)
			if strings.HasPrefix(f.File, root+"/plain/") {
				lastPlain = i
			} else if firstChart < 0 {
				firstChart = i
			}
		}
	}
	problems := map[string]int{}
	for _, f := range found {
		if f.RuleID == checks.RenderFailed {
			problems[strings.TrimPrefix(f.File, root+"/")]++
		}
	}
	if problems["app/Chart.yaml"] == 0 || problems["app/templates/cm.yaml"] == 0 || firstChart < 0 || lastPlain < 0 {
		t.Fatalf("want render problems on app/Chart.yaml and app/templates/cm.yaml, and findings on the plain Pod and the chart; got:\n%s", lines(found))
	}
	if lastPlain >= firstChart {
		t.Errorf("the plain file's findings came in batch %d, not before the chart's first (%d): they waited for the chart's", lastPlain, firstChart)
	}
	ended := map[string]bool{}
	for i, f := range found {
		if i == 0 {
			continue
		}
		before := found[i-1]
		if f.File != before.File {
			if ended[f.File] {
				t.Errorf("%s's findings are split: %s comes between them", f.File, before.File)
			}
			ended[before.File] = true
		} else if f.Line < before.Line {
			t.Errorf("%s: line %d (%s) after line %d (%s)", f.File, f.Line, f.RuleID, before.Line, before.RuleID)
		}
	}
}
