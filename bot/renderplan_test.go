package bot

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/rendered"
)

func keys(m map[string]bool) []string {
	var out []string
	for k, ok := range m {
		if ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestRenderPlanWant: the files loaded at head are the manifests the config
// checks, every file of a chart the change touches (not of the others),
// and the files of the kustomize folders; a file the config excludes is
// loaded for a render but not checked as written.
func TestRenderPlanWant(t *testing.T) {
	cfg, err := checks.ParseConfig([]byte("exclude: [\"charts/web/ci/**\"]\n"), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	tree := []string{
		".prodready.yaml", "README.md",
		"charts/web/Chart.yaml", "charts/web/values.yaml", "charts/web/.helmignore", "charts/web/Chart.lock",
		"charts/web/templates/_helpers.tpl", "charts/web/templates/NOTES.txt", "charts/web/templates/deployment.yaml",
		"charts/web/charts/redis-1.0.0.tgz", "charts/web/files/app.conf", "charts/web/ci/test-values.yaml",
		"charts/other/Chart.yaml", "charts/other/templates/_helpers.tpl", "charts/other/values.yaml",
		"kustomize/base/kustomization.yaml", "kustomize/base/deployment.yaml",
		"kustomize/overlays/prod/Kustomization", "kustomize/overlays/prod/api.env",
		"src/main.go",
	}
	plan := newRenderPlan(cfg, []ChangedFile{{Path: "charts/web/values.yaml", Status: "modified"}})
	got := keys(plan.want(tree))
	want := []string{
		"charts/other/Chart.yaml", "charts/other/values.yaml",
		"charts/web/.helmignore", "charts/web/Chart.lock", "charts/web/Chart.yaml", "charts/web/charts/redis-1.0.0.tgz",
		"charts/web/ci/test-values.yaml", "charts/web/files/app.conf", "charts/web/templates/NOTES.txt",
		"charts/web/templates/_helpers.tpl", "charts/web/templates/deployment.yaml", "charts/web/values.yaml",
		"kustomize/base/deployment.yaml", "kustomize/base/kustomization.yaml",
		"kustomize/overlays/prod/Kustomization", "kustomize/overlays/prod/api.env",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("loaded:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if plan.plain["charts/web/ci/test-values.yaml"] || plan.plain["charts/web/templates/_helpers.tpl"] || !plan.plain["charts/web/values.yaml"] {
		t.Errorf("plain = %v: an excluded or non-YAML file must not be checked as written", keys(plan.plain))
	}
	if strings.Join(plan.charts, ",") != "charts/web" {
		t.Errorf("charts = %v, want only the touched charts/web", plan.charts)
	}
}

// TestRenderPlanBound: a chart with more files than MaxRenderFiles loads
// the shallowest and names the rest as not loaded.
func TestRenderPlanBound(t *testing.T) {
	cfg := checks.DefaultConfig(catalog.Default())
	tree := []string{"c/Chart.yaml", "c/values.yaml", "c/templates/_helpers.tpl"}
	for i := 0; i < MaxRenderFiles+10; i++ {
		tree = append(tree, fmt.Sprintf("c/files/deep/f%05d.txt", i))
	}
	plan := newRenderPlan(cfg, []ChangedFile{{Path: "c/values.yaml", Status: "modified"}})
	got := plan.want(tree)
	if !got["c/templates/_helpers.tpl"] || len(plan.extra) != MaxRenderFiles || len(plan.notLoaded) != 11 {
		t.Errorf("helpers loaded %v, %d extra, %d not loaded; want the helpers, %d and 11", got["c/templates/_helpers.tpl"], len(plan.extra), len(plan.notLoaded), MaxRenderFiles)
	}
}

// TestRenderPlanOverlays: a changed base makes every root overlay reaching
// it affected, and no other.
func TestRenderPlanOverlays(t *testing.T) {
	cfg := checks.DefaultConfig(catalog.Default())
	files := []File{
		{Path: "base/kustomization.yaml", Data: []byte("resources: [deployment.yaml]\n")},
		{Path: "base/deployment.yaml", Data: []byte("kind: Deployment\n")},
		{Path: "prod/kustomization.yaml", Data: []byte("resources: [../base]\n")},
		{Path: "staging/kustomization.yaml", Data: []byte("resources: [../base]\n")},
		{Path: "other/kustomization.yaml", Data: []byte("resources: [cm.yaml]\n")},
		{Path: "other/cm.yaml", Data: []byte("kind: ConfigMap\n")},
	}
	var tree []string
	for _, f := range files {
		tree = append(tree, f.Path)
	}
	plan := newRenderPlan(cfg, []ChangedFile{{Path: "base/deployment.yaml", Status: "modified"}})
	plan.want(tree)
	folder, ok := plan.folder(files)
	if !ok {
		t.Fatal("nothing to render")
	}
	var overlays []string
	for k := range plan.overlays {
		overlays = append(overlays, k)
	}
	sort.Strings(overlays)
	if strings.Join(overlays, ",") != "prod/kustomization.yaml,staging/kustomization.yaml" {
		t.Errorf("affected overlays %v, want prod and staging", overlays)
	}
	if _, ok := folder.Files["other/cm.yaml"]; ok {
		t.Errorf("the untouched overlay's files are rendered: %v", folder.Files.Under(""))
	}
}

// TestRendererErrorIsAWarning: a renderer that fails makes a
// render-failed warning on the touched chart; the review goes on.
func TestRendererErrorIsAWarning(t *testing.T) {
	h := &memHost{
		allRules: true,
		refs: map[string]map[string]string{"head": {
			"c/Chart.yaml":                "apiVersion: v2\nname: c\nversion: 1.0.0\n",
			"c/values.yaml":               "replicaCount: 1\n",
			"c/templates/deployment.yaml": "kind: Deployment\nspec:\n  replicas: {{ .Values.replicaCount }}\n",
		}},
		changed: []ChangedFile{{Path: "c/values.yaml", Status: "modified", Patch: "@@ -1 +1 @@\n-replicaCount: 2\n+replicaCount: 1\n"}},
	}
	rv := NewReviewer(nil, nil)
	rv.Render = func(context.Context, rendered.Files, rendered.Options) (rendered.Result, error) {
		return rendered.Result{}, errors.New("renderer down")
	}
	r, err := rv.Prepare(context.Background(), h, PullRequest{BaseSHA: "base", HeadSHA: "head"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s %s:%d %s", f.Severity, f.File, f.Line, f.RuleID))
	}
	if strings.Join(got, ",") != "warning c/Chart.yaml:1 render-failed" {
		t.Errorf("findings %v, want one render-failed warning on c/Chart.yaml", got)
	}
	if !strings.Contains(r.Summary, "renderer down") {
		t.Errorf("summary lacks the renderer's error:\n%s", r.Summary)
	}
}

// TestMappedFixWithoutEdits: a mapped finding keeps its fix's description
// but no edits; the comment carries the description and no suggestion.
func TestMappedFixWithoutEdits(t *testing.T) {
	f := checks.Finding{RuleID: "replicas-too-few", Severity: checks.Warning, File: "c/values.yaml", Line: 1, Message: "m (rendered from the chart c)", Fix: &checks.Fix{Description: "set replicas: 3"}}
	sugs, err := SuggestFixes(f.File, []byte("replicaCount: 1\n"), []checks.Finding{f})
	if err != nil || len(sugs) != 0 {
		t.Fatalf("suggestions %v, %v; want none", sugs, err)
	}
	rv := NewReviewer(nil, nil)
	cs, outside := rv.threads(context.Background(), f.File, []byte("replicaCount: 1\n"), "@@ -1 +1 @@\n-replicaCount: 2\n+replicaCount: 1\n", []checks.Finding{f}, map[string]bool{f.Fingerprint(): true})
	if len(cs) != 1 || len(outside) != 0 {
		t.Fatalf("comments %d, outside %d", len(cs), len(outside))
	}
	if !strings.Contains(cs[0].Body, "Fix: set replicas: 3") || strings.Contains(cs[0].Body, "```suggestion\n") {
		t.Errorf("body:\n%s", cs[0].Body)
	}
}

// TestNearRemoval: a finding on a block that lost lines is placed on the
// line above the removal, within the block only.
func TestNearRemoval(t *testing.T) {
	src := "containers:\n  - name: web\n    image: x\n  - name: side\n    image: y\n"
	// Lines removed after "image: x" (line 3), inside web's item.
	d, err := ParsePatch("@@ -1,7 +1,5 @@\n containers:\n   - name: web\n     image: x\n-    readinessProbe:\n-      tcpSocket: {port: 1}\n   - name: side\n     image: y\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := nearRemoval(d, []byte(src), 2); got != 3 {
		t.Errorf("web: %d, want 3", got)
	}
	if got := nearRemoval(d, []byte(src), 4); got != 0 {
		t.Errorf("side: %d, want 0 (the removal is not in its block)", got)
	}
	for _, line := range []int{-1, 0, 99} {
		if got := nearRemoval(d, []byte(src), line); got != 0 {
			t.Errorf("line %d: %d, want 0", line, got)
		}
	}
}

// TestRenderPlanNeedsChartDependencies: once the first load is in, the
// plan asks for the files of the sibling chart an affected chart depends
// on by name (read, not rendered), and a change to that sibling makes the
// charts depending on it affected, with their files asked for.
func TestRenderPlanNeedsChartDependencies(t *testing.T) {
	cfg, err := checks.ParseConfig(nil, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	tree := []string{
		"bitnami/common/Chart.yaml", "bitnami/common/templates/_names.tpl",
		"bitnami/redis/Chart.yaml", "bitnami/redis/values.yaml", "bitnami/redis/templates/_helpers.tpl",
		"bitnami/nginx/Chart.yaml", "bitnami/nginx/templates/_helpers.tpl",
	}
	content := map[string]string{
		"bitnami/common/Chart.yaml": "apiVersion: v2\nname: common\ntype: library\nversion: 2.0.0\n",
		"bitnami/redis/Chart.yaml":  "apiVersion: v2\nname: redis\nversion: 1.0.0\ndependencies:\n- name: common\n  repository: oci://registry-1.docker.io/bitnamicharts\n  version: 2.x.x\n",
		"bitnami/nginx/Chart.yaml":  "apiVersion: v2\nname: nginx\nversion: 1.0.0\n",
	}
	load := func(picked map[string]bool) []File {
		var out []File
		for _, p := range tree {
			if picked[p] {
				out = append(out, File{Path: p, Data: []byte(content[p])})
			}
		}
		return out
	}

	plan := newRenderPlan(cfg, []ChangedFile{{Path: "bitnami/redis/values.yaml", Status: "modified"}})
	first := load(plan.want(tree))
	more := plan.needs(first)
	if more == nil {
		t.Fatal("a change to redis asks for nothing more; want common's files")
	}
	if got := strings.Join(keys(more(tree)), " "); got != "bitnami/common/templates/_names.tpl" {
		t.Errorf("asked for %q, want common's template", got)
	}
	if strings.Join(plan.charts, " ") != "bitnami/redis" || strings.Join(plan.deps, " ") != "bitnami/common" {
		t.Errorf("charts %v, deps %v; want redis rendered, common read", plan.charts, plan.deps)
	}
	folder, ok := plan.folder(append(first, load(more(tree))...))
	if !ok || strings.Join(folder.Roots, " ") != "bitnami/redis" || folder.Files["bitnami/common/templates/_names.tpl"] == nil {
		t.Errorf("folder roots %v (ok %v); want redis as the only root, with common's files", folder.Roots, ok)
	}

	plan = newRenderPlan(cfg, []ChangedFile{{Path: "bitnami/common/templates/_names.tpl", Status: "modified"}})
	more = plan.needs(load(plan.want(tree)))
	if more == nil {
		t.Fatal("a change to common asks for nothing more; want redis's files")
	}
	if got := strings.Join(keys(more(tree)), " "); got != "bitnami/redis/templates/_helpers.tpl" {
		t.Errorf("asked for %q, want redis's template (its values.yaml and Chart.yaml are loaded already)", got)
	}
	if strings.Join(plan.charts, " ") != "bitnami/common bitnami/redis" || len(plan.deps) != 0 {
		t.Errorf("charts %v, deps %v; want common and redis affected (nginx does not depend on common)", plan.charts, plan.deps)
	}
}
