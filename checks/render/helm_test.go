package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prodready/prodready/checks/rendered"
)

func fixtures(t testing.TB) rendered.Files {
	t.Helper()
	files, err := rendered.ReadDir("../../fixtures/render")
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// docIndex returns the index of the document of the given kind, or fails.
func docIndex(t *testing.T, r *rendered.Render, kind string) int {
	t.Helper()
	for i, d := range r.Documents {
		if d.Kind == kind {
			return i
		}
	}
	t.Fatalf("no %s among %d documents; problems: %+v", kind, len(r.Documents), r.Problems)
	return -1
}

type locCase struct {
	path string
	want rendered.Location
}

func checkLocations(t *testing.T, r *rendered.Render, doc int, cases []locCase) {
	t.Helper()
	for _, c := range cases {
		got, ok := r.Locate(doc, c.path)
		if !ok {
			t.Errorf("Locate(%d, %s): nothing found", doc, c.path)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Locate(%d, %s) (-want +got):\n%s", doc, c.path, diff)
		}
	}
}

func TestHelmSourceMap(t *testing.T) {
	r := RenderChart(context.Background(), fixtures(t), "helm/web", nil, rendered.Options{})
	dep := docIndex(t, r, "Deployment")
	const tpl, values, helpers = "helm/web/templates/deployment.yaml", "helm/web/values.yaml", "helm/web/templates/_helpers.tpl"
	checkLocations(t, r, dep, []locCase{
		{"spec.replicas", rendered.Location{File: values, Line: 1, Column: 1, Kind: Values}},
		{"spec.template.spec.containers[0].readinessProbe", rendered.Location{File: tpl, Line: 21, Column: 11, Kind: Template}},
		{"spec.template.spec.containers[0].readinessProbe.httpGet.port", rendered.Location{File: tpl, Line: 24, Column: 15, Kind: Template}},
		{"spec.template.spec.containers[0]", rendered.Location{File: tpl, Line: 17, Column: 11, Kind: Template}},
		{`metadata.labels["app.kubernetes.io/name"]`, rendered.Location{File: helpers, Line: 2, Column: 1, Kind: Template}},
		{"metadata.labels", rendered.Location{File: tpl, Line: 5, Column: 3, Kind: Template}},
		{"spec.template.spec.containers[0].resources", rendered.Location{File: values, Line: 5, Column: 1, Kind: Values}},
		{"spec.template.spec.containers[0].resources.limits.cpu", rendered.Location{File: values, Line: 7, Column: 5, Kind: Values}},
		// A key the author would add inherits its parent's line.
		{"spec.template.spec.containers[0].livenessProbe", rendered.Location{File: tpl, Line: 17, Column: 11, Kind: Template, Inherited: true}},
	})
	// The values line comes first, then the template line that emits it.
	origins := r.Origins(dep, "spec.replicas")
	want := []rendered.Location{{File: values, Line: 1, Column: 1, Kind: Values}, {File: tpl, Line: 8, Column: 3, Kind: Template}}
	if diff := cmp.Diff(want, origins); diff != "" {
		t.Errorf("Origins(spec.replicas) (-want +got):\n%s", diff)
	}
	if strings.Contains(string(r.Stream), "#@p") {
		t.Errorf("stream carries source marks:\n%s", r.Stream)
	}
	if d := r.Documents[dep]; d.Source != tpl || d.Name != "release-web" || !strings.HasPrefix(string(r.Stream[lineOffset(r.Stream, d.Line):]), "apiVersion: apps/v1") {
		t.Errorf("document = %+v, stream:\n%s", d, r.Stream)
	}
}

// lineOffset returns the byte offset of 1-based line n of s.
func lineOffset(s []byte, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		off += strings.IndexByte(string(s[off:]), '\n') + 1
	}
	return off
}

func TestHelmSubchartAndHooks(t *testing.T) {
	r := RenderChart(context.Background(), fixtures(t), "helm/web", nil, rendered.Options{})
	cm := docIndex(t, r, "ConfigMap")
	checkLocations(t, r, cm, []locCase{
		{"data.size", rendered.Location{File: "helm/web/charts/cache/values.yaml", Line: 1, Column: 1, Kind: Values}},
		{"metadata.name", rendered.Location{File: "helm/web/charts/cache/templates/configmap.yaml", Line: 4, Column: 3, Kind: Template}},
	})
	for _, d := range r.Documents {
		if d.Kind == "Pod" {
			t.Errorf("helm test hook was not dropped: %+v", d)
		}
	}
	wantSkipped := map[string]string{
		"helm/web/templates/tests/test-connection.yaml": "helm test hook",
		"helm/web/templates/NOTES.txt":                  "NOTES.txt",
	}
	for file, reason := range wantSkipped {
		if got := skipReason(r, file); !strings.Contains(got, reason) {
			t.Errorf("skip reason of %s = %q, want it to mention %q", file, got, reason)
		}
	}
	// redis is disabled by its condition: not needed, not reported. queue is
	// enabled and absent: reported at its Chart.yaml line.
	if len(r.Problems) != 1 || r.Problems[0].File != "helm/web/Chart.yaml" || r.Problems[0].Line != 12 || !strings.Contains(r.Problems[0].Message, "dependency queue") {
		t.Errorf("problems = %+v, want one about the missing queue dependency at Chart.yaml:12", r.Problems)
	}
}

func skipReason(r *rendered.Render, file string) string {
	for _, s := range r.Skipped {
		if s.File == file {
			return s.Reason
		}
	}
	return ""
}

func TestHelmValuesVariants(t *testing.T) {
	files := fixtures(t)
	r := RenderChart(context.Background(), files, "helm/web", []string{"helm/web/ci/prod-values.yaml"}, rendered.Options{})
	dep := docIndex(t, r, "Deployment")
	const ci = "helm/web/ci/prod-values.yaml"
	checkLocations(t, r, dep, []locCase{
		{"spec.replicas", rendered.Location{File: ci, Line: 1, Column: 1, Kind: Values}},
		{"spec.template.metadata.annotations", rendered.Location{File: ci, Line: 2, Column: 1, Kind: Values}},
		{"spec.template.metadata.annotations.team", rendered.Location{File: ci, Line: 3, Column: 3, Kind: Values}},
		// Not overridden by the variant: still values.yaml.
		{"spec.template.spec.containers[0].resources.limits.cpu", rendered.Location{File: "helm/web/values.yaml", Line: 7, Column: 5, Kind: Values}},
	})
	if !strings.Contains(string(r.Documents[dep].YAML), "replicas: 5") {
		t.Errorf("variant values not applied:\n%s", r.Documents[dep].YAML)
	}

	nocache := RenderChart(context.Background(), files, "helm/web", []string{"helm/web/values-nocache.yaml"}, rendered.Options{})
	for _, d := range nocache.Documents {
		if d.Kind == "ConfigMap" {
			t.Errorf("disabled dependency rendered: %+v", d)
		}
	}
	if got := skipReason(nocache, "helm/web/charts/cache/templates/configmap.yaml"); !strings.Contains(got, "disabled") {
		t.Errorf("disabled dependency's template skip reason = %q", got)
	}
}

func TestRunValuesSetsAndFailure(t *testing.T) {
	res := Run(context.Background(), fixtures(t), rendered.Options{})
	var web []string
	var broken *rendered.Render
	for _, r := range res.Renders {
		switch r.Root {
		case "helm/web":
			web = append(web, strings.Join(r.ValuesFiles, ","))
		case "helm/broken":
			broken = r
		}
	}
	want := []string{"", "helm/web/ci/prod-values.yaml", "helm/web/values-nocache.yaml"}
	if diff := cmp.Diff(want, web); diff != "" {
		t.Errorf("web values sets (-want +got):\n%s", diff)
	}
	if broken == nil || len(broken.Problems) == 0 {
		t.Fatalf("broken chart: no render or no problem: %+v", broken)
	}
	p := broken.Problems[0]
	if p.File != "helm/broken/templates/service.yaml" || p.Line != 4 || !strings.Contains(p.Message, "service.yaml") {
		t.Errorf("broken chart problem = %+v", p)
	}
	if len(broken.Documents) != 0 || skipReason(broken, "helm/broken/templates/service.yaml") != "render failed" {
		t.Errorf("broken chart: documents %d, skipped %+v", len(broken.Documents), broken.Skipped)
	}
}

func TestRunRenderCap(t *testing.T) {
	res := Run(context.Background(), fixtures(t), rendered.Options{MaxRenders: 1})
	if len(res.Renders) != 1 || len(res.NotRendered) == 0 || len(res.Problems) != 1 {
		t.Errorf("renders %d, not rendered %d, problems %+v", len(res.Renders), len(res.NotRendered), res.Problems)
	}
}

func TestHelmObjectBound(t *testing.T) {
	r := RenderChart(context.Background(), fixtures(t), "helm/web", nil, rendered.Options{MaxObjects: 1})
	if len(r.Documents) != 1 {
		t.Errorf("documents = %d, want 1", len(r.Documents))
	}
	if len(r.Problems) < 2 || !strings.Contains(r.Problems[len(r.Problems)-1].Message, "bound") {
		t.Errorf("problems = %+v, want a bound problem", r.Problems)
	}
}

func TestReadDirRefusesSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("x: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "chart"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "chart", "Chart.yaml"), []byte("name: c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "chart", "Chart.yaml"), filepath.Join(root, "inside.yaml")); err != nil {
		t.Skip("symlinks unsupported here")
	}
	files, err := rendered.ReadDir(root)
	if err != nil || string(files["inside.yaml"]) != "name: c\n" {
		t.Fatalf("link inside the root: files %v, err %v", files, err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(root, "chart", "values.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := rendered.ReadDir(root); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("ReadDir with a link leading outside: err = %v, want a refusal", err)
	}
}

// TestHelmCapabilitiesHaveAggregatedAPIs checks that a chart choosing its
// apiVersion by .Capabilities.APIVersions gets the one a cluster serves:
// apiregistration.k8s.io/v1, which Helm's default capabilities lack.
func TestHelmCapabilitiesHaveAggregatedAPIs(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: adapter\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("{}\n"),
		"c/templates/apiservice.yaml": []byte(`{{- if .Capabilities.APIVersions.Has "apiregistration.k8s.io/v1" }}
apiVersion: apiregistration.k8s.io/v1
{{- else }}
apiVersion: apiregistration.k8s.io/v1beta1
{{- end }}
kind: APIService
metadata:
  name: v1beta1.custom.metrics.k8s.io
{{- if .Capabilities.APIVersions.Has "apiextensions.k8s.io/v1/CustomResourceDefinition" }}
  annotations:
    crds: v1
{{- end }}
`),
	}
	res := Run(context.Background(), files, rendered.Options{KubeVersion: "1.33.0"})
	if len(res.Renders) != 1 || len(res.Renders[0].Documents) != 1 {
		t.Fatalf("renders: %+v", res)
	}
	d := res.Renders[0].Documents[0]
	if d.APIVersion != "apiregistration.k8s.io/v1" || !strings.Contains(string(d.YAML), "crds: v1") {
		t.Errorf("rendered %s:\n%s", d.APIVersion, d.YAML)
	}
}

// TestHelmSeparatorGluedToText renders a template whose {{- if -}} trims the
// newline after a "---", as cert-manager's rbac.yaml does, so the output
// holds "---# comment": Helm splits there, so the comment opens the next
// document and the three objects are three documents, none of them
// reported as output that is not YAML.
func TestHelmSeparatorGluedToText(t *testing.T) {
	files, err := rendered.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	r := RenderChart(context.Background(), files, "glued-separator", nil, rendered.Options{})
	if len(r.Problems) != 0 {
		t.Errorf("problems = %+v, want none", r.Problems)
	}
	var got []string
	for _, d := range r.Documents {
		got = append(got, d.Kind+"/"+d.Name)
	}
	want := []string{"ClusterRole/edit", "ClusterRole/approve", "ClusterRoleBinding/approve"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("documents (-want +got):\n%s", diff)
	}
	approve := docIndex(t, r, "ClusterRoleBinding") - 1
	checkLocations(t, r, approve, []locCase{
		{"metadata.name", rendered.Location{File: "glued-separator/templates/rbac.yaml", Line: 18, Column: 3, Kind: Template}},
	})
}

// TestHelmStreamLeavesDroppedDocumentsOut renders a template whose
// documents between kept ones are left out (a comment-only document, a
// test hook, one that is not YAML): the stream holds the kept ones
// alone, each document's text is the stream's at its line, and its
// source map reads it.
func TestHelmStreamLeavesDroppedDocumentsOut(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("n: 1\n"),
		"c/templates/all.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: first
data:
  n: {{ "1" | quote }}
---
# only a comment
---
apiVersion: v1
kind: Pod
metadata:
  name: hook
  annotations:
    helm.sh/hook: test
---
a: [b
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: last
`),
	}
	r := RenderChart(context.Background(), files, "c", nil, rendered.Options{})
	want := "---\n# Source: c/templates/all.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\ndata:\n  n: \"1\"\n" +
		"---\n# Source: c/templates/all.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: last\n"
	if string(r.Stream) != want {
		t.Errorf("stream:\n%s\nwant:\n%s", r.Stream, want)
	}
	if len(r.Documents) != 2 || r.Documents[0].Name != "first" || r.Documents[1].Name != "last" {
		t.Fatalf("documents = %+v", r.Documents)
	}
	for i, d := range r.Documents {
		if at := lineOffset(r.Stream, d.Line); !strings.HasPrefix(string(r.Stream[at:]), string(d.YAML)) || len(d.YAML) == 0 {
			t.Errorf("document %d's text %q is not the stream's at line %d", i, d.YAML, d.Line)
		}
	}
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "not YAML") {
		t.Errorf("problems = %+v, want one: not YAML", r.Problems)
	}
	if got := skipReason(r, "c/templates/all.yaml"); !strings.Contains(got, "helm test hook Pod/hook") {
		t.Errorf("skip reason = %q, want the test hook's", got)
	}
	if locs := r.Origins(1, "metadata.name"); len(locs) == 0 || locs[0].Line != 22 {
		t.Errorf("Origins(last, metadata.name) = %+v, want the template's line 22", locs)
	}
}

// TestHelmValuesSchema holds the values of a render to each
// values.schema.json of its chart tree, as helm template holds them: a
// value the chart's schema refuses is a problem at the values line that
// sets it, one its enabled subchart's schema refuses at the parent's line
// that sets it, with the schema library's words; a disabled subchart's
// schema is not read; a schema that names a document Helm would fetch is
// listed as not checked, naming it; the render goes on.
func TestHelmValuesSchema(t *testing.T) {
	files := rendered.Files{
		"app/Chart.yaml":                       []byte("apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n- name: extra\n  version: 0.1.0\n  condition: extra.enabled\n- name: remote\n  version: 0.1.0\n"),
		"app/values.yaml":                      []byte("replicas: many\nsub:\n  port: http\nextra:\n  enabled: false\n  port: http\nmode: quick\n"),
		"app/values.schema.json":               []byte(`{"type": "object", "properties": {"replicas": {"type": "integer"}, "mode": {"anyOf": [{"type": "integer"}, {"enum": ["fast", "slow"]}]}}}`),
		"app/templates/cm.yaml":                []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  replicas: {{ .Values.replicas | quote }}\n"),
		"app/charts/sub/Chart.yaml":            []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n"),
		"app/charts/sub/values.yaml":           []byte("port: 80\n"),
		"app/charts/sub/values.schema.json":    []byte(`{"properties": {"port": {"type": "integer"}}}`),
		"app/charts/sub/templates/cm.yaml":     []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n"),
		"app/charts/extra/Chart.yaml":          []byte("apiVersion: v2\nname: extra\nversion: 0.1.0\n"),
		"app/charts/extra/values.schema.json":  []byte(`{"properties": {"port": {"type": "integer"}}}`),
		"app/charts/extra/templates/cm.yaml":   []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"),
		"app/charts/remote/Chart.yaml":         []byte("apiVersion: v2\nname: remote\nversion: 0.1.0\n"),
		"app/charts/remote/values.yaml":        []byte("a: 1\n"),
		"app/charts/remote/values.schema.json": []byte(`{"$ref": "https://example.com/schema.json"}`),
		"app/charts/remote/templates/cm.yaml":  []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: remote\n"),
	}
	r := RenderChart(context.Background(), files, "app", nil, rendered.Options{})
	var got []string
	for _, p := range r.Problems {
		if !p.Values {
			t.Errorf("a problem that is not about values: %+v", p)
			continue
		}
		got = append(got, fmt.Sprintf("%s:%d %s", p.File, p.Line, p.Message))
	}
	sort.Strings(got)
	want := []string{
		"app/values.yaml:1 helm template and helm install refuse these values: at '/replicas': got string, want integer (app/values.schema.json)",
		"app/values.yaml:3 helm template and helm install refuse these values: at '/port': got string, want integer (app/charts/sub/values.schema.json)",
		"app/values.yaml:7 helm template and helm install refuse these values: at '/mode': 'anyOf' failed; at '/mode': got string, want integer; at '/mode': value must be one of 'fast', 'slow' (app/values.schema.json)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if reason := skipReason(r, "app/charts/remote/values.schema.json"); !strings.Contains(reason, "https://example.com/schema.json") {
		t.Errorf("skip reason of the schema that names a remote document = %q, want it to name the document", reason)
	}
	if n := len(r.Documents); n != 3 {
		t.Errorf("%d documents, want app's, sub's and remote's: the render goes on", n)
	}
}

// TestHelmFailureAtTheTemplateLine checks where a render that fails is
// reported: the innermost template line the engine's error names, when it
// is a file of the repository, else the chart's Chart.yaml.
func TestHelmFailureAtTheTemplateLine(t *testing.T) {
	const chartYAML = "apiVersion: v2\nname: app\nversion: 0.1.0\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"
	for _, tc := range []struct {
		name     string
		files    rendered.Files
		file     string
		line     int
		contains string
	}{
		{"nil pointer in a template", rendered.Files{
			"app/Chart.yaml":       []byte(chartYAML),
			"app/templates/a.yaml": []byte(cm + "data:\n  k: {{ .Values.missing.key }}\n"),
		}, "app/templates/a.yaml", 6, "nil pointer"},
		{"an error inside an include: the helper's line", rendered.Files{
			"app/Chart.yaml":             []byte(chartYAML),
			"app/templates/_helpers.tpl": []byte("{{- define \"app.name\" -}}\n{{ .Values.name.first }}\n{{- end -}}\n"),
			"app/templates/a.yaml":       []byte(cm + "data:\n  k: {{ include \"app.name\" . }}\n"),
		}, "app/templates/_helpers.tpl", 2, "nil pointer"},
		{"fail: the line that calls it", rendered.Files{
			"app/Chart.yaml":       []byte(chartYAML),
			"app/templates/a.yaml": []byte("{{- if not .Values.ok }}\n{{- fail \"set ok\" }}\n{{- end }}\n" + cm),
		}, "app/templates/a.yaml", 2, "set ok"},
		{"parse error", rendered.Files{
			"app/Chart.yaml":       []byte(chartYAML),
			"app/templates/a.yaml": []byte(cm + "data:\n  k: {{ .Values.x | nosuchfunc }}\n"),
		}, "app/templates/a.yaml", 6, "nosuchfunc"},
		{"a subchart's template in the repository", rendered.Files{
			"app/Chart.yaml":                 []byte(chartYAML),
			"app/charts/db/Chart.yaml":       []byte("apiVersion: v2\nname: db\nversion: 0.1.0\n"),
			"app/charts/db/templates/a.yaml": []byte(cm + "\n\ndata:\n  k: {{ .Values.nested.key }}\n"),
		}, "app/charts/db/templates/a.yaml", 8, "nil pointer"},
		{"a subchart's template inside a .tgz: no line to point at", rendered.Files{
			"app/Chart.yaml": []byte(chartYAML),
			"app/charts/db-0.1.0.tgz": tgz(t, map[string]string{
				"db/Chart.yaml":       "apiVersion: v2\nname: db\nversion: 0.1.0\n",
				"db/templates/a.yaml": cm + "data:\n  k: {{ .Values.nested.key }}\n",
			}),
		}, "app/Chart.yaml", 1, "db/templates/a.yaml:6"},
		{"a values.yaml that does not parse: the line the parser names", rendered.Files{
			"app/Chart.yaml":       []byte(chartYAML),
			"app/values.yaml":      []byte("a: [\nb: 1\n"),
			"app/templates/a.yaml": []byte(cm),
		}, "app/values.yaml", 2, "cannot load values.yaml"},
		{"output that is not YAML: the template line that writes it", rendered.Files{
			"app/Chart.yaml":       []byte(chartYAML),
			"app/templates/a.yaml": []byte(cm + "data:\n  a: {{ .Values.x | default 1 }}\n   b: 2\n"),
		}, "app/templates/a.yaml", 7, "the line this template line writes is not YAML: mapping values are not allowed"},
		{"output that is not YAML in a second document, from a helper: the helper's line", rendered.Files{
			"app/Chart.yaml":             []byte(chartYAML),
			"app/templates/_helpers.tpl": []byte("{{- define \"bad\" }}\n  k: v\n   x: 1\n{{- end }}\n"),
			"app/templates/a.yaml":       []byte(cm + "---\n" + cm + "data:\n{{- include \"bad\" . }}\n"),
		}, "app/templates/_helpers.tpl", 3, "the line this template line writes is not YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := renderOne(t, tc.files, rendered.Options{})
			if len(r.Problems) != 1 {
				t.Fatalf("problems = %+v, want one", r.Problems)
			}
			p := r.Problems[0]
			if p.File != tc.file || p.Line != tc.line || !strings.Contains(p.Message, tc.contains) {
				t.Errorf("problem at %s:%d (%s), want %s:%d naming %q", p.File, p.Line, p.Message, tc.file, tc.line, tc.contains)
			}
			if notYAML := strings.Contains(tc.name, "not YAML"); p.Refused != notYAML {
				t.Errorf("refused %v, want %v: helm template refuses output that is not YAML whatever else renders", p.Refused, notYAML)
			}
		})
	}
}

// TestHelmFailureInAMissingDependencysTemplate: a chart whose helper
// includes a template of a dependency it lacks (argo-cd's Redis HA
// helpers, redis-ha absent) fails to render; the failure says that the
// template is the missing dependency's, and where it is declared, beside
// the problem of the dependency itself. A template no dependency's name
// begins is said as the engine says it.
func TestHelmFailureInAMissingDependencysTemplate(t *testing.T) {
	chartYAML := "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: redis-ha\n    version: 4.38.0\n    repository: https://example.com/charts\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  k: {{ include %q . }}\n"
	for name, want := range map[string]string{
		"redis-ha.fullname": " (redis-ha.fullname is a template of the dependency redis-ha, declared on line 5 of the chart's Chart.yaml, which is missing)",
		"other.fullname":    `no template "other.fullname" associated with template`,
	} {
		r := renderOne(t, rendered.Files{
			"app/Chart.yaml":       []byte(chartYAML),
			"app/templates/a.yaml": []byte(fmt.Sprintf(cm, name)),
		}, rendered.Options{})
		var failed, missing bool
		for _, p := range r.Problems {
			switch {
			case p.Missing:
				missing = p.File == "app/Chart.yaml" && p.Line == 5
			case strings.HasPrefix(p.Message, "rendering: "):
				failed = strings.Contains(p.Message, want) && strings.Contains(p.Message, "which is missing") == strings.Contains(want, "which is missing")
			}
		}
		if !failed || !missing {
			t.Errorf("include %q: problems %+v\nwant the dependency missing at app/Chart.yaml:5 and the failure saying %q", name, r.Problems, want)
		}
	}
	// A subchart's dependency is named in the subchart's Chart.yaml.
	r := renderOne(t, rendered.Files{
		"app/Chart.yaml":                 []byte("apiVersion: v2\nname: app\nversion: 0.1.0\n"),
		"app/charts/db/Chart.yaml":       []byte("apiVersion: v2\nname: db\nversion: 0.1.0\ndependencies:\n  - name: cache\n    version: 1.0.0\n    repository: https://example.com/charts\n"),
		"app/charts/db/templates/a.yaml": []byte(fmt.Sprintf(cm, "cache.fullname")),
	}, rendered.Options{})
	want := " (cache.fullname is a template of the dependency cache, declared on line 5 of the chart's charts/db/Chart.yaml, which is missing)"
	if !slices.ContainsFunc(r.Problems, func(p rendered.Problem) bool { return strings.Contains(p.Message, want) }) {
		t.Errorf("a subchart's missing dependency: problems %+v\nwant one saying %q", r.Problems, want)
	}
}

// TestHelmValuesSchemaWhenTheRenderFails: values the chart's schema
// refuses are said also when a template fails, as helm template refuses
// them before it renders; the template's error is said too.
func TestHelmValuesSchemaWhenTheRenderFails(t *testing.T) {
	files := rendered.Files{
		"app/Chart.yaml":         []byte("apiVersion: v2\nname: app\nversion: 0.1.0\n"),
		"app/values.yaml":        []byte("image: nginx\nreplicas: many\n"),
		"app/values.schema.json": []byte(`{"type": "object", "properties": {"replicas": {"type": "integer"}}}`),
		"app/templates/cm.yaml":  []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  k: {{ .Values.missing.key }}\n"),
	}
	r := renderOne(t, files, rendered.Options{})
	var got []string
	for _, p := range r.Problems {
		got = append(got, fmt.Sprintf("%s:%d values=%v", p.File, p.Line, p.Values))
	}
	sort.Strings(got)
	want := []string{"app/templates/cm.yaml:6 values=false", "app/values.yaml:2 values=true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%+v", diff, r.Problems)
	}
}

// TestHelmSubchartValuesNotAMapping: values of a subchart that are not a
// mapping, which Helm refuses before it renders with an error that names
// the subchart alone and prints the value with a broken verb ("type
// mismatch on sub: %!t(string=x)"), are one problem at the values line that
// sets them, saying what they are: in the chart's values, in a values set,
// under another subchart's key, or in that subchart's own defaults.
func TestHelmSubchartValuesNotAMapping(t *testing.T) {
	chart := func(name string, deps ...string) []byte {
		s := "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n"
		if len(deps) > 0 {
			s += "dependencies:\n"
			for _, d := range deps {
				s += "- name: " + d + "\n  version: 0.1.0\n"
			}
		}
		return []byte(s)
	}
	cm := func(name string) []byte {
		return []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n")
	}
	base := rendered.Files{
		"app/Chart.yaml":                              chart("app", "listy", "mid"),
		"app/templates/cm.yaml":                       cm("app"),
		"app/charts/listy/Chart.yaml":                 chart("listy"),
		"app/charts/listy/templates/cm.yaml":          cm("listy"),
		"app/charts/mid/Chart.yaml":                   chart("mid", "leaf"),
		"app/charts/mid/templates/cm.yaml":            cm("mid"),
		"app/charts/mid/charts/leaf/Chart.yaml":       chart("leaf"),
		"app/charts/mid/charts/leaf/templates/x.yaml": cm("leaf"),
	}
	for _, tc := range []struct {
		name   string
		files  rendered.Files
		values []string
		want   string
	}{
		{"a list in the chart's values", rendered.Files{"app/values.yaml": []byte("name: x\nlisty: [a, b]\n")}, nil,
			"app/values.yaml:2 the values of subchart listy are a list, not a mapping (helm template and helm install refuse them)"},
		{"a number in a values set", rendered.Files{"app/ci/x-values.yaml": []byte("listy: 3\n")}, []string{"app/ci/x-values.yaml"},
			"app/ci/x-values.yaml:1 the values of subchart listy are a number, not a mapping (helm template and helm install refuse them)"},
		{"a string under another subchart's key", rendered.Files{"app/values.yaml": []byte("mid:\n  leaf: hello\n")}, nil,
			"app/values.yaml:2 the values of subchart mid.leaf are a string, not a mapping (helm template and helm install refuse them)"},
		{"the subchart's own defaults", rendered.Files{"app/charts/mid/values.yaml": []byte("leaf: true\n")}, nil,
			"app/charts/mid/values.yaml:1 the values of subchart mid.leaf are a boolean, not a mapping (helm template and helm install refuse them)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := rendered.Files{}
			for k, v := range base {
				files[k] = v
			}
			for k, v := range tc.files {
				files[k] = v
			}
			r := RenderChart(context.Background(), files, "app", tc.values, rendered.Options{})
			var got []string
			for _, p := range r.Problems {
				got = append(got, fmt.Sprintf("%s:%d %s", p.File, p.Line, p.Message))
			}
			if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHelmLoadsTheChartVersionsHelmLoads: Helm loads charts of apiVersion
// v1, v2 and v3 (v3 as v2 but for requirements.yaml) and refuses any other
// ("unsupported chart version"): the chart is not rendered. A dependency
// under charts/ that Helm's loader refuses makes helm template refuse the
// chart: the render goes on without it, the problem marked refused (an
// error), and it is not also said missing.
func TestHelmLoadsTheChartVersionsHelmLoads(t *testing.T) {
	cm := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n")
	for _, tc := range []struct {
		apiVersion string
		docs       int
		problem    string
	}{
		{"v1", 1, ""},
		{"v2", 1, ""},
		{"v3", 1, ""},
		{"v9", 0, `apiVersion "v9" is not a chart API version Helm loads (v1, v2 or v3)`},
	} {
		files := rendered.Files{
			"app/Chart.yaml":        []byte("apiVersion: " + tc.apiVersion + "\nname: app\nversion: 0.1.0\n"),
			"app/templates/cm.yaml": cm,
		}
		r := RenderChart(context.Background(), files, "app", nil, rendered.Options{})
		var got []string
		for _, p := range r.Problems {
			got = append(got, p.Message)
		}
		if len(r.Documents) != tc.docs || (tc.problem == "") != (len(got) == 0) || tc.problem != "" && (len(got) != 1 || got[0] != tc.problem) {
			t.Errorf("apiVersion %s: %d documents, problems %q; want %d documents and the problem %q", tc.apiVersion, len(r.Documents), got, tc.docs, tc.problem)
		}
	}

	files := rendered.Files{
		"app/Chart.yaml":            []byte("apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 0.1.0\n"),
		"app/templates/cm.yaml":     cm,
		"app/charts/sub/Chart.yaml": []byte("apiVersion: v2\nname: sub\n"),
	}
	r := RenderChart(context.Background(), files, "app", nil, rendered.Options{})
	if len(r.Problems) != 1 || !r.Problems[0].Refused || r.Problems[0].File != "app/charts/sub/Chart.yaml" || !strings.Contains(r.Problems[0].Message, "chart.metadata.version is required") {
		t.Errorf("a subchart without a version: problems %+v, want one, refused, at app/charts/sub/Chart.yaml", r.Problems)
	}
	if len(r.Documents) != 1 {
		t.Errorf("%d documents, want the chart's own: the render goes on without the subchart", len(r.Documents))
	}
}
