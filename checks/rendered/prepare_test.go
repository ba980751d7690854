package rendered_test

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
)

// check renders the charts and overlays of dir (relative to the
// repository root) in process, checks what Prepare returns, and returns
// the mapped findings and the render-failed ones.
func check(t *testing.T, dir string) []checks.Finding {
	t.Helper()
	dir = filepath.ToSlash(filepath.Join(checkstest.Root(t), dir))
	cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
	p := rendered.Prepare(context.Background(), inputs, rendered.ReadFolders(inputs, []string{dir}), render.InProcess, rendered.Options{KubeVersion: cfg.KubernetesVersion})
	out := append([]checks.Finding(nil), p.Problems...)
	return append(out, p.Map(checks.Run(p.Inputs, cfg, checks.Options{}).Findings)...)
}

// at names findings by rule, file (relative to dir) and line.
func at(t *testing.T, dir string, fs []checks.Finding) map[string]bool {
	t.Helper()
	root := filepath.ToSlash(filepath.Join(checkstest.Root(t), dir))
	out := map[string]bool{}
	for _, f := range fs {
		rel := f.File
		if len(rel) > len(root) && rel[:len(root)] == root {
			rel = rel[len(root)+1:]
		}
		out[fmt.Sprintf("%s %s:%d", f.RuleID, rel, f.Line)] = true
	}
	return out
}

// TestRendererRuleFixtures checks the fixture folders of the rules the
// renderer's findings are of (render-failed, kustomize-patch-unmatched,
// kustomize-replacement-unmatched) against their # want: markers, with
// the charts and overlays rendered.
func TestRendererRuleFixtures(t *testing.T) {
	for _, rule := range []string{checks.RenderFailed, checks.PatchUnmatched, checks.ReplacementUnmatched} {
		t.Run(rule, func(t *testing.T) {
			dir := path.Join("fixtures", "rules", rule)
			_, want := checkstest.Fixture(t, catalog.Default(), filepath.Join(checkstest.Root(t), dir))
			var wantAt, gotAt []string
			for _, m := range want {
				wantAt = append(wantAt, fmt.Sprintf("%s %s:%d", m.Rule, m.File, m.Line))
			}
			for _, f := range check(t, dir) {
				if f.RuleID == rule {
					gotAt = append(gotAt, fmt.Sprintf("%s %s:%d", f.RuleID, path.Base(f.File), f.Line))
				}
			}
			sort.Strings(wantAt)
			sort.Strings(gotAt)
			if len(wantAt) == 0 {
				t.Fatalf("the fixture has no # want: %s marker", rule)
			}
			if d := cmp.Diff(wantAt, gotAt); d != "" {
				t.Errorf("%s findings differ from the markers (-want +got):\n%s", rule, d)
			}
		})
	}
}

// TestFindingsPointAtTheSource checks that findings on rendered objects
// land on the line the author edits: the template line that emits the key,
// the values line that feeds it, the base or patch line of an overlay.
func TestFindingsPointAtTheSource(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want []string
	}{
		{"fixtures/render/helm", []string{
			// resources: {{ toYaml .Values.resources }}: the values file's key.
			"memory-requests-missing web/values.yaml:5",
			// The container's `- name:` line of the template.
			"capabilities-not-dropped web/templates/deployment.yaml:17",
			// A chart whose template fails: one finding at the template
			// line the engine names.
			"render-failed broken/templates/service.yaml:4",
		}},
		{"fixtures/render/kustomize", []string{
			// The base's container, seen through the prod overlay.
			"capabilities-not-dropped base/deployment.yaml:10",
			// The patch that sets the container's resources.
			"cpu-requests-missing overlays/prod/replicas-patch.yaml:11",
			// Refused: an exec plugin and a remote resource.
			"render-failed exec/kustomization.yaml:4",
			"render-failed remote/kustomization.yaml:3",
		}},
	} {
		got := at(t, tc.dir, check(t, tc.dir))
		for _, w := range tc.want {
			if !got[w] {
				t.Errorf("%s: no finding %s; got %v", tc.dir, w, got)
			}
		}
		for g := range got {
			if strings.Contains(g, ".prodready-render-") {
				t.Errorf("%s: finding left on the rendered stream: %s", tc.dir, g)
			}
		}
	}
}

// TestPlainRunRendersNothing checks that inputs without a chart or a
// kustomization never start a renderer.
func TestPlainRunRendersNothing(t *testing.T) {
	inputs := []checks.Input{{Path: "app/deploy.yaml", Data: []byte("kind: Pod\n")}}
	called := false
	folders := append(rendered.ReadFolders(inputs, []string{"app"}), rendered.Folder{Dir: "app", Files: rendered.Files{"deploy.yaml": inputs[0].Data}})
	p := rendered.Prepare(context.Background(), inputs, folders, func(context.Context, rendered.Files, rendered.Options) (rendered.Result, error) {
		called = true
		return rendered.Result{}, nil
	}, rendered.Options{})
	if called || len(p.Inputs) != 1 || len(p.Problems) != 0 {
		t.Errorf("renderer called %v, %d inputs, %d problems; want no call, the one input, no problem", called, len(p.Inputs), len(p.Problems))
	}
}

// TestValuesSets checks that a chart is checked with each of its values
// sets: a finding every set has is reported once, with no set named; one
// that only some sets have names them, whether values.yaml has it or not;
// a set that breaks the render gets its own render-failed finding, one
// for every set that breaks it alike, naming each.
func TestValuesSets(t *testing.T) {
	dir := filepath.ToSlash(filepath.Join(checkstest.Root(t), "fixtures", "render", "helm-sets"))
	cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
	opts := rendered.Options{KubeVersion: cfg.KubernetesVersion, ExtraValues: map[string][][]string{
		"web": {{"envs/prod.yaml"}, {"envs/broken.yaml"}, {"envs/prod.yaml", "envs/broken.yaml"}},
	}}
	p := rendered.Prepare(context.Background(), inputs, rendered.ReadFolders(inputs, []string{dir}), render.InProcess, opts)
	p.CheckValuesSets(cfg)
	fs := append([]checks.Finding(nil), p.Problems...)
	fs = append(fs, p.Map(checks.Run(p.Inputs, cfg, checks.Options{}).Findings)...)
	fs = append(fs, p.Unreported()...)

	byRule := map[string][]string{}
	for _, f := range fs {
		_, sets, _ := strings.Cut(f.Message, "(rendered from the chart "+dir+"/web")
		byRule[f.RuleID] = append(byRule[f.RuleID], fmt.Sprintf("%s:%d %s", strings.TrimPrefix(f.File, dir+"/"), f.Line, sets))
	}
	want := map[string][]string{
		// values.yaml has one replica; values-ha.yaml and envs/prod.yaml more.
		"spread-missing": {"web/templates/deployment.yaml:16 ; with values-ha.yaml, envs/prod.yaml, not with values.yaml, ci/noprobes-values.yaml)"},
		// Only ci/noprobes-values.yaml turns the probes off.
		"liveness-probe-missing": {"web/templates/deployment.yaml:18 ; with ci/noprobes-values.yaml, not with values.yaml, values-ha.yaml, envs/prod.yaml)"},
		// Every set lacks resources: said once, naming no set.
		"cpu-requests-missing": {"web/templates/deployment.yaml:18 )"},
	}
	for rule, w := range want {
		if diff := cmp.Diff(w, byRule[rule]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", rule, diff)
		}
	}
	failed := byRule[checks.RenderFailed]
	// envs/broken.yaml has no probes: key, which the template reads at line 23.
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "web/templates/deployment.yaml:23 ") {
		t.Fatalf("render-failed findings %q, want one at web/templates/deployment.yaml:23 for the sets with envs/broken.yaml", failed)
	}
	for _, f := range fs {
		if f.RuleID == checks.RenderFailed && !strings.Contains(f.Message, "with values envs/broken.yaml, envs/prod.yaml + envs/broken.yaml cannot") {
			t.Errorf("render-failed %q does not name both values sets that break the render", f.Message)
		}
	}
}

// TestConfigOptions checks that each charts: entry of the config is one
// more values set of its chart, its paths cleaned.
func TestConfigOptions(t *testing.T) {
	cfg, err := checks.ParseConfig([]byte(`
kubernetesVersion: "1.33"
charts:
  - {path: ./charts/web/, values: [envs/prod.yaml, ./envs/eu.yaml]}
  - {path: charts/web, values: [envs/dev.yaml]}
`), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	opts := rendered.ConfigOptions(cfg)
	want := map[string][][]string{"charts/web": {{"envs/prod.yaml", "envs/eu.yaml"}, {"envs/dev.yaml"}}}
	if diff := cmp.Diff(want, opts.ExtraValues); diff != "" || opts.KubeVersion != "1.33" {
		t.Errorf("KubeVersion %q, ExtraValues (-want +got):\n%s", opts.KubeVersion, diff)
	}
}

// TestIgnoreCommentsAtTheSource checks that an ignore comment on the
// template line a finding is mapped to silences it there, and that one on
// the first line of Chart.yaml silences the chart's render-failed finding,
// which is at the template line the render failed on.
func TestIgnoreCommentsAtTheSource(t *testing.T) {
	dir := filepath.ToSlash(filepath.Join(checkstest.Root(t), "fixtures", "render", "helm-sets"))
	cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
	folders := rendered.ReadFolders(inputs, []string{dir})
	if len(folders) != 1 || folders[0].Err != nil {
		t.Fatalf("folders: %+v", folders)
	}
	files := folders[0].Files
	lines := strings.Split(string(fileOf(t, folders[0], "web/templates/deployment.yaml")), "\n")
	if !strings.Contains(lines[17], "- name: web") {
		t.Fatalf("fixture moved: line 18 is %q", lines[17])
	}
	lines[17] += "  # prodready:ignore cpu-requests-missing measured in staging first"
	files["web/templates/deployment.yaml"] = []byte(strings.Join(lines, "\n"))
	files["web/Chart.yaml"] = append([]byte("# prodready:ignore render-failed envs/broken.yaml is meant to fail\n"), files["web/Chart.yaml"]...)
	opts := rendered.Options{KubeVersion: cfg.KubernetesVersion, ExtraValues: map[string][][]string{"web": {{"envs/broken.yaml"}}}}
	p := rendered.Prepare(context.Background(), inputs, folders, render.InProcess, opts)
	p.CheckValuesSets(cfg)
	fs := append([]checks.Finding(nil), p.Problems...)
	fs = append(fs, p.Map(checks.Run(p.Inputs, cfg, checks.Options{}).Findings)...)
	fs = append(fs, p.Unreported()...)
	got := map[string]bool{}
	for _, f := range fs {
		got[f.RuleID] = true
	}
	if got["cpu-requests-missing"] || got[checks.RenderFailed] {
		t.Errorf("silenced findings reported: %v", got)
	}
	if !got["memory-requests-missing"] || !got["spread-missing"] {
		t.Errorf("findings the comments do not name are gone: %v", got)
	}
}

// TestChartYAMLIgnoreHoldsForTheChart checks that an ignore comment on the
// first line of a chart's Chart.yaml silences its render-failed findings
// wherever they are (the template line the render failed on, a dependency
// line), and those of that chart only.
func TestChartYAMLIgnoreHoldsForTheChart(t *testing.T) {
	dir := filepath.ToSlash(filepath.Join(checkstest.Root(t), "fixtures", "rules", checks.RenderFailed))
	cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
	for _, chart := range []string{"broken", "partial"} {
		t.Run(chart, func(t *testing.T) {
			folders := rendered.ReadFolders(inputs, []string{dir})
			if len(folders) != 1 || folders[0].Err != nil {
				t.Fatalf("folders: %+v", folders)
			}
			name := chart + "/Chart.yaml"
			folders[0].Files[name] = append([]byte("# prodready:ignore render-failed known and tracked\n"), fileOf(t, folders[0], name)...)
			p := rendered.Prepare(context.Background(), inputs, folders, render.InProcess, rendered.Options{KubeVersion: cfg.KubernetesVersion})
			var left []string
			for _, f := range p.Problems {
				left = append(left, strings.TrimPrefix(f.File, dir+"/"))
			}
			if len(left) != 1 || strings.HasPrefix(left[0], chart+"/") {
				t.Errorf("render-failed findings left %q, want the other chart's only", left)
			}
		})
	}
}

// TestRenderFailedSeverity checks that a chart rendered in part (a
// dependency that is not vendored) is a warning, and one that cannot be
// rendered at all an error.
func TestRenderFailedSeverity(t *testing.T) {
	want := map[string]checks.Severity{"partial": checks.Warning, "broken": checks.Error}
	seen := map[string]bool{}
	for _, f := range check(t, path.Join("fixtures", "rules", checks.RenderFailed)) {
		if f.RuleID != checks.RenderFailed {
			continue
		}
		_, rel, _ := strings.Cut(f.File, checks.RenderFailed+"/")
		chart, _, _ := strings.Cut(rel, "/")
		seen[chart] = true
		if f.Severity != want[chart] {
			t.Errorf("render-failed on chart %s is %s, want %s: %s", chart, f.Severity, want[chart], f.Message)
		}
	}
	for chart := range want {
		if !seen[chart] {
			t.Errorf("no render-failed finding on chart %s", chart)
		}
	}
}

// TestUnmappedTemplateIsSaid checks that a finding on a template whose
// render lost its line map (Render.Unmapped) says so, with the reason, in
// its message, which every output carries.
func TestUnmappedTemplateIsSaid(t *testing.T) {
	dir := filepath.ToSlash(filepath.Join(checkstest.Root(t), "fixtures/render/helm"))
	cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
	const why = "a reason of the test's"
	lose := func(ctx context.Context, files rendered.Files, opts rendered.Options) (rendered.Result, error) {
		res, err := render.InProcess(ctx, files, opts)
		for _, r := range res.Renders {
			for _, d := range r.Documents {
				if d.Kind == "Deployment" {
					r.Unmapped = append(r.Unmapped, rendered.Skipped{File: d.Source, Reason: why})
				}
			}
		}
		return res, err
	}
	p := rendered.Prepare(context.Background(), inputs, rendered.ReadFolders(inputs, []string{dir}), lose, rendered.Options{KubeVersion: cfg.KubernetesVersion})
	said := 0
	for _, f := range p.Map(checks.Run(p.Inputs, cfg, checks.Options{}).Findings) {
		if f.Object.Kind != "Deployment" {
			continue
		}
		if !strings.Contains(f.Message, rendered.UnmappedNote+why+")") {
			t.Errorf("%s %s:%d: message does not say the map is lost: %s", f.RuleID, f.File, f.Line, f.Message)
		}
		said++
	}
	if said == 0 {
		t.Fatal("no finding on the fixture's Deployment")
	}
	// And on a line of its own, once, which every output lists with the
	// files not checked (report.NotCheckedOf reads Result.Unchecked).
	lines := 0
	for _, u := range p.MapUnchecked(nil) {
		if strings.HasSuffix(u.At.File, "templates/deployment.yaml") && strings.Contains(u.Reason, why) {
			lines++
		}
	}
	if lines != 1 {
		t.Errorf("the template whose map is lost is said on %d lines of its own, want 1: %+v", lines, p.MapUnchecked(nil))
	}
}

// TestRenderedCRDsReadFromTheStream holds a lean run, which keeps no copy
// of a rendered CRD's text and reads it again from its render's stream
// when crd-schema needs it (Input.ReadAt), to a run that keeps every text:
// the chart renders the crd-schema fixture's CRD and custom resources, so
// each resource is validated against the rendered CRD.
func TestRenderedCRDsReadFromTheStream(t *testing.T) {
	fixture := filepath.Join(checkstest.Root(t), "fixtures", "rules", "crd-schema")
	files := rendered.Files{
		"chart/Chart.yaml":  []byte("apiVersion: v2\nname: db\nversion: 1.0.0\n"),
		"chart/values.yaml": []byte("{}\n"),
	}
	for _, f := range []string{"crd.yaml", "databases.yaml"} {
		data, err := os.ReadFile(filepath.Join(fixture, f))
		if err != nil {
			t.Fatal(err)
		}
		files["chart/templates/"+f] = data
	}
	cfg := checks.DefaultConfig(catalog.Default())
	reads := 0
	run := func(o checks.Options) []checks.Finding {
		var inputs []checks.Input
		for p, data := range files {
			inputs = append(inputs, checks.Input{Path: p, Data: data})
		}
		sort.Slice(inputs, func(i, j int) bool { return inputs[i].Path < inputs[j].Path })
		p := rendered.Prepare(context.Background(), inputs, []rendered.Folder{{Dir: ".", Files: files}}, render.InProcess, rendered.Options{})
		for i := range p.Inputs {
			if readAt := p.Inputs[i].ReadAt; readAt != nil {
				p.Inputs[i].ReadAt = func(off, n int) ([]byte, error) { reads++; return readAt(off, n) }
			}
		}
		return p.Map(checks.Run(p.Inputs, cfg, o).Findings)
	}
	keep := run(checks.Options{})
	schema := 0
	for _, f := range keep {
		if f.RuleID == "crd-schema" {
			schema++
		}
	}
	if schema < 5 {
		t.Fatalf("the run that keeps every text has %d crd-schema findings, want the fixture's (at least 5): %v", schema, keep)
	}
	lean := run(checks.Options{Memory: checks.Lean})
	if diff := cmp.Diff(keep, lean); diff != "" {
		t.Errorf("lean run's findings differ (-keep +lean):\n%s", diff)
	}
	if reads == 0 {
		t.Error("the lean run kept the rendered CRD's text: it never read it again from the stream")
	}
}

// TestBasePatchThatSelectsNothingSaidOnce: two overlays with their own
// namePrefix build on a base whose patch, or replacement, selects
// nothing; each overlay's build finds it, and it is said once, at the
// base's target line, as a base of an overlay, with the same words (the
// names it lists are the base's, not each overlay's).
func TestBasePatchThatSelectsNothingSaidOnce(t *testing.T) {
	const deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n" +
		"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n"
	for _, c := range []struct {
		name, kustomization, rule string
		line                      int
		says                      string
	}{
		{"a patch's mistyped name", "resources:\n- deploy.yaml\npatches:\n- target:\n    kind: Deployment\n    name: wbe\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n",
			"kustomize-patch-unmatched", 6, "did you mean Deployment web?"},
		{"a replacement's labels only the pod template has", "resources:\n- deploy.yaml\nreplacements:\n- sourceValue: \"3\"\n  targets:\n  - select:\n      kind: Deployment\n      labelSelector: app=web\n    fieldPaths: [spec.replicas]\n",
			"kustomize-replacement-unmatched", 8, "the build's Deployments: web"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.ToSlash(checkstest.WriteTree(t, map[string]string{
				"base/kustomization.yaml":    c.kustomization,
				"base/deploy.yaml":           deploy,
				"staging/kustomization.yaml": "resources:\n- ../base\nnamePrefix: staging-\n",
				"prod/kustomization.yaml":    "resources:\n- ../base\nnamePrefix: prod-\n",
			}))
			cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
			p := rendered.Prepare(context.Background(), inputs, rendered.ReadFolders(inputs, []string{dir}), render.InProcess, rendered.Options{KubeVersion: cfg.KubernetesVersion})
			var got []string
			for _, f := range p.Problems {
				got = append(got, fmt.Sprintf("%s %s:%d %s", f.RuleID, strings.TrimPrefix(f.File, dir+"/"), f.Line, f.Message))
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], fmt.Sprintf("%s base/kustomization.yaml:%d ", c.rule, c.line)) || !strings.Contains(got[0], c.says) ||
				!strings.Contains(got[0], "(a base of the overlay "+dir+"/") {
				t.Errorf("problems = %q, want the base's %s once, at base/kustomization.yaml:%d, saying %q, as a base of an overlay", got, c.rule, c.line, c.says)
			}
		})
	}
}

// TestUnjudgedPatchesAreSaidOnce: two overlays use a component with a
// targeted patch, which the patch check does not judge; what the run did
// not check says so once, at the component's kustomization.
func TestUnjudgedPatchesAreSaidOnce(t *testing.T) {
	dir := filepath.ToSlash(checkstest.WriteTree(t, map[string]string{
		"comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- target:\n    kind: Secret\n  patch: |-\n    - op: add\n      path: /data/x\n      value: eQ==\n",
		"a/kustomization.yaml":    "resources:\n- cm.yaml\ncomponents:\n- ../comp\n",
		"a/cm.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"b/kustomization.yaml":    "resources:\n- cm.yaml\ncomponents:\n- ../comp\n",
		"b/cm.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
	}))
	cfg, inputs := checkstest.Load(t, catalog.Default(), dir)
	p := rendered.Prepare(context.Background(), inputs, rendered.ReadFolders(inputs, []string{dir}), render.InProcess, rendered.Options{KubeVersion: cfg.KubernetesVersion})
	var got []string
	for _, u := range p.MapUnchecked(nil) {
		got = append(got, strings.TrimPrefix(u.At.File, dir+"/")+": "+u.Reason)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "comp/kustomization.yaml: its targeted patches are not checked for selecting nothing") {
		t.Errorf("not checked = %q, want the component's patches once", got)
	}
}

// TestRefusedDependencyIsAnError: a dependency under charts/ that Helm's
// loader refuses makes helm template and helm install refuse the chart: an
// error, though the chart is checked without it, unlike a dependency that
// is not vendored (a warning: an install fetches it).
func TestRefusedDependencyIsAnError(t *testing.T) {
	files := rendered.Files{
		"app/Chart.yaml":            []byte("apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n- name: remote\n  version: 1.0.0\n  repository: https://charts.example.com\n"),
		"app/templates/cm.yaml":     []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"),
		"app/charts/sub/Chart.yaml": []byte("apiVersion: v2\nname: sub\n"),
	}
	inputs := []checks.Input{{Path: "app/Chart.yaml", Data: files["app/Chart.yaml"]}}
	p := rendered.Prepare(context.Background(), inputs, []rendered.Folder{{Dir: ".", Files: files}}, render.InProcess, rendered.Options{})
	got := map[string]string{}
	for _, f := range p.Problems {
		got[fmt.Sprintf("%s:%d", f.File, f.Line)] = f.Severity.String() + " " + f.Message
	}
	want := map[string]string{
		"app/charts/sub/Chart.yaml:1": "error the chart app is rendered only in part, and helm template and helm install refuse it: loading chart app/charts/sub: validation: chart.metadata.version is required",
		"app/Chart.yaml:7":            `warning the chart app is rendered only in part: dependency remote (version "1.0.0" from "https://charts.example.com") is needed with these values but is neither in charts/, nor a file:// chart in the repository, nor a chart of that name in the repository; rendered without it`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if p.Renders != 1 {
		t.Errorf("%d renders checked, want the chart's: it goes on without the refused dependency", p.Renders)
	}
}

// TestSchemaProblemsAtTheLineThatWritesThem: a value of a rendered object
// the Kubernetes schema refuses is reported where it is written, not at
// its document's first line: in a chart, at the template line that makes
// its YAML ("| quote" turns the number 2 into a string), naming the values
// line its value comes from; in an overlay, at the patch line that sets it.
func TestSchemaProblemsAtTheLineThatWritesThem(t *testing.T) {
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: %s\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n"
	files := rendered.Files{
		"app/Chart.yaml":             []byte("apiVersion: v2\nname: app\nversion: 0.1.0\n"),
		"app/values.yaml":            []byte("name: web\nreplicas: 2\n"),
		"app/templates/deploy.yaml":  []byte(fmt.Sprintf(deploy, "{{ .Values.replicas | quote }}")),
		"base/deploy.yaml":           []byte(fmt.Sprintf(deploy, "1")),
		"base/kustomization.yaml":    []byte("resources: [deploy.yaml]\n"),
		"overlay/kustomization.yaml": []byte("resources: [../base]\npatches:\n  - path: patch.yaml\n"),
		"overlay/patch.yaml":         []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: \"three\"\n"),
	}
	var inputs []checks.Input
	for _, p := range []string{"app/Chart.yaml", "overlay/kustomization.yaml"} {
		inputs = append(inputs, checks.Input{Path: p, Data: files[p]})
	}
	cfg := checks.DefaultConfig(catalog.Default())
	p := rendered.Prepare(context.Background(), inputs, []rendered.Folder{{Dir: ".", Files: files}}, render.InProcess, rendered.Options{KubeVersion: cfg.KubernetesVersion})
	var got []string
	for _, f := range p.Map(checks.Run(p.Inputs, cfg, checks.Options{}).Findings) {
		if f.RuleID == "schema-invalid" {
			msg, _, _ := strings.Cut(f.Message, rendered.RenderedFrom)
			got = append(got, fmt.Sprintf("%s:%d:%d %s", f.File, f.Line, f.Column, msg))
		}
	}
	sort.Strings(got)
	want := []string{
		"app/templates/deploy.yaml:6:3 apps/v1 Deployment does not match the Kubernetes schema: spec.replicas must be an integer, not a string (the value is set at line 2 of app/values.yaml)",
		"overlay/patch.yaml:6:3 apps/v1 Deployment does not match the Kubernetes schema: spec.replicas must be an integer, not a string",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema-invalid findings (-want +got):\n%s", diff)
	}
}
