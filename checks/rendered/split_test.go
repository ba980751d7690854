package rendered_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
)

// scratchChart is fixtures/render/helm-two-files, under c/: its web
// container writes its securityContext only from values
// (securityContext: {} leaves it out), or, with literal set, as its own
// lines; it mounts nothing and its pod has no volumes, and both end in a
// key written from values (resources, then nodeSelector), so the mount
// and the volume a fix adds are adjacent once rendered.
func scratchChart(t *testing.T, literal bool) rendered.Files {
	t.Helper()
	dir := filepath.Join(checkstest.Root(t), "fixtures/render/helm-two-files")
	files := rendered.Files{}
	for _, p := range []string{"Chart.yaml", "values.yaml", "templates/deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		files["c/"+p] = data
	}
	if literal {
		const fromValues = "          {{- with .Values.securityContext }}\n          securityContext:\n            {{- toYaml . | nindent 12 }}\n          {{- end }}\n"
		tmpl := string(files["c/templates/deployment.yaml"])
		if !strings.Contains(tmpl, fromValues) {
			t.Fatalf("the fixture's template no longer writes the securityContext from values:\n%s", tmpl)
		}
		files["c/templates/deployment.yaml"] = []byte(strings.Replace(tmpl, fromValues, "          securityContext:\n            runAsNonRoot: true\n", 1))
	}
	return files
}

// TestSplitSetsTheValuesAndAddsTheTemplatesLines checks that a fix no
// one file of a chart takes whole (a read-only root filesystem for a
// container whose securityContext only values write, and the volume for
// /tmp that only the template can add) is one fix in two files: the
// finding at the values key its first edit sets, the template's lines as
// its other part, and, applied whole, a chart that renders the container
// read-only with /tmp mounted.
func TestSplitSetsTheValuesAndAddsTheTemplatesLines(t *testing.T) {
	chart := scratchChart(t, false)
	f := lastByRule(verifiedChart(t, chart))["readonly-rootfs-missing"]
	if f.File != "c/values.yaml" || f.Line != 1 || f.Fix == nil || f.Fix.Withheld != "" || len(f.Fix.Edits) != 1 ||
		strings.Join(f.Fix.Edits[0].Path, ".") != "securityContext.readOnlyRootFilesystem" {
		t.Fatalf("readonly-rootfs-missing at %s:%d, fix %+v; want securityContext.readOnlyRootFilesystem set at values.yaml:1", f.File, f.Line, f.Fix)
	}
	if len(f.Fix.Also) != 1 || f.Fix.Also[0].File != "c/templates/deployment.yaml" || len(f.Fix.Also[0].Lines) == 0 {
		t.Fatalf("its other part: %+v, want line changes of the template", f.Fix.Also)
	}
	if d := f.Fix.Description; !strings.Contains(d, "as securityContext.readOnlyRootFilesystem in values.yaml, and with lines of c/templates/deployment.yaml: one fix in two files") {
		t.Errorf("the fix says %q", d)
	}
	doc := renderWhole(t, chart, f)
	for _, want := range []string{"readOnlyRootFilesystem: true", "mountPath: /tmp", "emptyDir: {}"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the fixed chart renders no %q:\n%s", want, doc)
		}
	}
}

// TestTemplateLinesPlaceEditsApart checks that a fix the template takes
// whole, but whose edits made together change adjacent rendered lines
// no template line wrote together (the mount at the container's end, the
// volume after it), is placed in groups of edits: line changes of the
// template alone, which render the container read-only with /tmp mounted.
func TestTemplateLinesPlaceEditsApart(t *testing.T) {
	chart := scratchChart(t, true)
	found := lastByRule(verifiedChart(t, chart))
	f := found["readonly-rootfs-missing"]
	if f.File != "c/templates/deployment.yaml" || f.Fix == nil || f.Fix.Withheld != "" || len(f.Fix.Lines) < 2 || len(f.Fix.Also) != 0 {
		t.Fatalf("readonly-rootfs-missing at %s:%d, fix %+v; want line changes of the template alone", f.File, f.Line, f.Fix)
	}
	// The pod's seccompProfile is inserted where the volume is: the two,
	// each in a group of its own, are one insertion, and the fixes that
	// insert there carry one set of changes (combineTemplateLines).
	if s := found["seccomp-profile-missing"]; s.Fix == nil || !reflect.DeepEqual(s.Fix.Lines, f.Fix.Lines) {
		t.Errorf("seccomp-profile-missing's lines %+v, want readonly-rootfs-missing's %+v", s.Fix, f.Fix.Lines)
	}
	doc := renderWhole(t, chart, f)
	for _, want := range []string{"readOnlyRootFilesystem: true", "mountPath: /tmp", "emptyDir: {}"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the fixed chart renders no %q:\n%s", want, doc)
		}
	}
}

// renderWhole applies f's fix to chart as fix does (all its parts, by
// fix.ConvergeWith), renders the fixed chart, and returns the rendered
// Deployment.
func renderWhole(t *testing.T, chart rendered.Files, f checks.Finding) string {
	t.Helper()
	var inputs []checks.Input
	for _, p := range slices.Sorted(maps.Keys(chart)) {
		inputs = append(inputs, checks.Input{Path: p, Data: chart[p]})
	}
	first := true
	out, o := fix.ConvergeWith(inputs, func([]checks.Input) []checks.Finding {
		if !first {
			return nil
		}
		first = false
		return []checks.Finding{f}
	}, nil)
	if len(o.Fixed) != 1 || len(o.Failed) != 0 {
		t.Fatalf("fix: %d fixed, failed %v", len(o.Fixed), o.Failed)
	}
	files := rendered.Files{}
	for _, in := range out {
		files[in.Path] = in.Data
	}
	res, err := render.InProcess(context.Background(), files, rendered.Options{})
	if err != nil || len(res.Renders) != 1 || len(res.Renders[0].Problems) > 0 {
		t.Fatalf("render: %v, %+v", err, res)
	}
	for _, d := range res.Renders[0].Documents {
		if strings.Contains(string(d.YAML), "kind: Deployment") {
			return string(d.YAML)
		}
	}
	t.Fatalf("the fixed chart renders no Deployment")
	return ""
}
