package scan_test

import (
	"context"
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
