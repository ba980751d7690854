package rendered_test

import (
	"context"
	"fmt"
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

// TestRenderFailedFixture checks render-failed's fixture folder against
// its # want: markers, with the chart rendered.
func TestRenderFailedFixture(t *testing.T) {
	dir := path.Join("fixtures", "rules", checks.RenderFailed)
	_, want := checkstest.Fixture(t, catalog.Default(), filepath.Join(checkstest.Root(t), dir))
	var wantAt, gotAt []string
	for _, m := range want {
		wantAt = append(wantAt, fmt.Sprintf("%s %s:%d", m.Rule, m.File, m.Line))
	}
	for _, f := range check(t, dir) {
		if f.RuleID == checks.RenderFailed {
			gotAt = append(gotAt, fmt.Sprintf("%s %s:%d", f.RuleID, path.Base(f.File), f.Line))
		}
	}
	sort.Strings(wantAt)
	sort.Strings(gotAt)
	if len(wantAt) == 0 {
		t.Fatal("the fixture has no # want: render-failed marker")
	}
	if d := cmp.Diff(wantAt, gotAt); d != "" {
		t.Errorf("render-failed findings differ from the markers (-want +got):\n%s", d)
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
			// A chart whose template fails: one finding at its Chart.yaml.
			"render-failed broken/Chart.yaml:1",
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
