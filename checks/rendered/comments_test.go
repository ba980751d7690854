package rendered_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
)

// TestChartFixesKeepLineComments checks that the two ways a chart's fix is
// made, an edit of the values file and a change of a template's literal
// lines, keep the end-of-line comment of the line they change, as a fix of
// a plain manifest does.
func TestChartFixesKeepLineComments(t *testing.T) {
	t.Run("values file", func(t *testing.T) {
		cfg, inputs, folder, dir := loadFixChart(t, "")
		values := bytes.Replace(fileOf(t, folder, "values.yaml"), []byte("replicaCount: 1\n"), []byte("replicaCount: 1   # raise before launch\n"), 1)
		if bytes.Equal(values, fileOf(t, folder, "values.yaml")) {
			t.Fatal("fixtures/render/helm-fix/values.yaml no longer has the line replicaCount: 1")
		}
		files := rendered.Files{}
		for k, v := range folder.Files {
			files[k] = v
		}
		files["values.yaml"] = values
		folder.Files = files
		for i, in := range inputs {
			if in.Path == dir+"/values.yaml" {
				inputs[i].Data = values
			}
		}
		var fs []checks.Finding
		for _, f := range verifiedRun(t, cfg, inputs, folder, render.InProcess) {
			if f.RuleID == "replicas-too-few" && f.File == dir+"/values.yaml" && f.Fix != nil && len(f.Fix.Edits) > 0 && strings.Contains(f.Fix.Description, "replicaCount") {
				fs = append(fs, f)
			}
		}
		if len(fs) != 1 {
			t.Fatalf("%d replicas-too-few findings with an edit of values.yaml, want 1 (the web's)", len(fs))
		}
		out, applied, failed := fix.Apply(values, fs)
		if len(applied) != 1 || len(failed) > 0 {
			t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
		}
		if !strings.Contains(string(out), "\nreplicaCount: 3   # raise before launch\n") {
			t.Errorf("the fixed values.yaml lost the line's comment:\n%s", out)
		}
	})
	t.Run("template lines", func(t *testing.T) {
		const tmpl = "c/templates/deployment.yaml"
		files := rendered.Files{}
		for k, v := range lineChart {
			files[k] = v
		}
		src := bytes.Replace(lineChart[tmpl], []byte("          securityContext:\n            privileged: true\n"),
			[]byte("          securityContext:\n            privileged: true # the device plugin's\n"), 1)
		if bytes.Equal(src, lineChart[tmpl]) {
			t.Fatal("lineChart no longer has the app container's privileged: true")
		}
		files[tmpl] = src
		var fs []checks.Finding
		for _, f := range verifiedChart(t, files) {
			if f.RuleID == "privileged-container" && f.File == tmpl && f.Fix != nil && len(f.Fix.Lines) > 0 {
				fs = append(fs, f)
			}
		}
		if len(fs) != 1 {
			t.Fatalf("%d privileged-container findings with template line changes, want 1 (the app container's)", len(fs))
		}
		out, applied, failed := fix.Apply(src, fs)
		if len(applied) != 1 || len(failed) > 0 {
			t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
		}
		if !strings.Contains(string(out), "\n            privileged: false # the device plugin's\n") {
			t.Errorf("the fixed template lost the line's comment:\n%s", out)
		}
	})
}
