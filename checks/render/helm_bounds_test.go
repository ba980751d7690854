package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// The tests in this file pin what checks/render promises of a Helm render
// (doc.go, docs/design.md): nothing is fetched, no cluster is asked, DNS is
// off, .Files sees only the chart, .Capabilities come from the options, and
// subcharts from charts/ folders, charts/*.tgz archives and .helmignore are
// honoured as `helm template` honours them.

// renderOne renders the only chart of files and returns its render.
func renderOne(t *testing.T, files rendered.Files, opts rendered.Options) *rendered.Render {
	t.Helper()
	res := Run(context.Background(), files, opts)
	if len(res.Renders) != 1 {
		t.Fatalf("renders = %d, want 1: %+v", len(res.Renders), res)
	}
	return res.Renders[0]
}

// configMapData returns the rendered ConfigMap's document text, or fails.
func configMapData(t *testing.T, r *rendered.Render) string {
	t.Helper()
	return string(r.Documents[docIndex(t, r, "ConfigMap")].YAML)
}

func TestHelmLookupAnswersNothing(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml": []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/templates/cm.yaml": []byte(`{{- $s := lookup "v1" "Secret" "default" "db" }}
{{- $all := lookup "v1" "Namespace" "" "" }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  secret: {{ if $s }}found{{ else }}absent{{ end }}
  namespaces: {{ len $all | quote }}
`),
	}
	r := renderOne(t, files, rendered.Options{})
	got := configMapData(t, r)
	if !strings.Contains(got, "secret: absent") || !strings.Contains(got, `namespaces: "0"`) {
		t.Errorf("lookup answered something:\n%s\nproblems: %+v", got, r.Problems)
	}
}

func TestHelmDNSOff(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml": []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/templates/cm.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  ip: {{ getHostByName "localhost" | quote }}
`),
	}
	r := renderOne(t, files, rendered.Options{})
	if got := configMapData(t, r); !strings.Contains(got, `ip: ""`) {
		t.Errorf("getHostByName resolved a name:\n%s", got)
	}
}

func TestHelmFilesStayInTheChart(t *testing.T) {
	files := rendered.Files{
		"secret.txt":            []byte("outside the chart\n"),
		"c/Chart.yaml":          []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/conf/app.conf":       []byte("inside\n"),
		"c/conf/skip.conf":      []byte("ignored\n"),
		"c/.helmignore":         []byte("conf/skip.conf\n"),
		"c/charts/s/x.txt":      []byte("subchart file\n"),
		"c/charts/s/Chart.yaml": []byte("apiVersion: v2\nname: s\nversion: 0.1.0\n"),
		"c/templates/cm.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  inside: {{ .Files.Get "conf/app.conf" | trim | quote }}
  parent: {{ .Files.Get "../secret.txt" | quote }}
  absolute: {{ .Files.Get "/secret.txt" | quote }}
  ignored: {{ .Files.Get "conf/skip.conf" | quote }}
  sub: {{ .Files.Get "charts/s/x.txt" | quote }}
  glob: {{ range $p, $_ := .Files.Glob "**" }}{{ $p }},{{ end }}
`),
	}
	r := renderOne(t, files, rendered.Options{})
	got := configMapData(t, r)
	for _, want := range []string{`inside: "inside"`, `parent: ""`, `absolute: ""`, `ignored: ""`, `sub: ""`, "glob: .helmignore,conf/app.conf,\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
	if got := skipReason(r, "c/conf/skip.conf"); got != "excluded by .helmignore" {
		t.Errorf("skip reason of c/conf/skip.conf = %q", got)
	}
}

func TestHelmCapabilitiesFromOptions(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml": []byte("apiVersion: v2\nname: c\nversion: 0.1.0\nkubeVersion: \">=1.28.0-0\"\n"),
		"c/templates/cm.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  version: {{ .Capabilities.KubeVersion.Version | quote }}
  major: {{ .Capabilities.KubeVersion.Major | quote }}
  minor: {{ .Capabilities.KubeVersion.Minor | quote }}
  apps: {{ .Capabilities.APIVersions.Has "apps/v1" | quote }}
  deployment: {{ .Capabilities.APIVersions.Has "apps/v1/Deployment" | quote }}
  policy: {{ .Capabilities.APIVersions.Has "policy/v1" | quote }}
  crd: {{ .Capabilities.APIVersions.Has "apiextensions.k8s.io/v1" | quote }}
  monitoring: {{ .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" | quote }}
  gte: {{ semverCompare ">=1.29.0-0" .Capabilities.KubeVersion.Version | quote }}
`),
	}
	r := renderOne(t, files, rendered.Options{KubeVersion: "1.31"})
	got := configMapData(t, r)
	for _, want := range []string{`version: "v1.31"`, `major: "1"`, `minor: "31"`, `apps: "true"`, `deployment: "false"`, `policy: "true"`, `crd: "true"`, `monitoring: "false"`, `gte: "true"`} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
	// The chart's kubeVersion constraint is not applied: Helm's install
	// action checks it, not the engine, and a chart is checked whatever it
	// claims to support.
	old := renderOne(t, files, rendered.Options{KubeVersion: "1.27"})
	if got := configMapData(t, old); !strings.Contains(got, `version: "v1.27"`) || !strings.Contains(got, `gte: "false"`) || len(old.Problems) != 0 {
		t.Errorf("under 1.27: problems %+v, rendered:\n%s", old.Problems, got)
	}
}

// tgz packs files (paths inside the archive) as helm package does.
func tgz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestHelmArchivedSubchart(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n  - name: db\n    version: 1.0.0\n    repository: https://charts.example.com\n"),
		"c/values.yaml": []byte("db:\n  size: 3\n"),
		"c/charts/db-1.0.0.tgz": tgz(t, map[string]string{
			"db/Chart.yaml":  "apiVersion: v2\nname: db\nversion: 1.0.0\n",
			"db/values.yaml": "size: 1\nport: 5432\n",
			"db/templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-db
data:
  size: {{ .Values.size | quote }}
  port: {{ .Values.port | quote }}
`,
		}),
	}
	r := renderOne(t, files, rendered.Options{})
	cm := docIndex(t, r, "ConfigMap")
	got := string(r.Documents[cm].YAML)
	if !strings.Contains(got, `size: "3"`) || !strings.Contains(got, `port: "5432"`) || !strings.Contains(got, "name: release-db") {
		t.Errorf("archived subchart rendered:\n%s", got)
	}
	if len(r.Problems) != 0 {
		t.Errorf("problems = %+v", r.Problems)
	}
	checkLocations(t, r, cm, []locCase{
		{"data.size", rendered.Location{File: "c/values.yaml", Line: 2, Column: 3, Kind: Values}},
		{"data.port", rendered.Location{File: "c/charts/db-1.0.0.tgz/db/values.yaml", Line: 2, Column: 1, Kind: Values}},
	})
}

// TestHelmFetchesNothing gives a chart a remote dependency and a values
// schema whose $ref both point at a local server: the render asks it
// nothing, reports the dependency as missing and renders the rest.
func TestHelmFetchesNothing(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	files := rendered.Files{
		"c/Chart.yaml":         []byte("apiVersion: v2\nname: c\nversion: 0.1.0\ndependencies:\n  - name: remote\n    version: 1.0.0\n    repository: " + srv.URL + "\n"),
		"c/values.yaml":        []byte("replicas: 2\n"),
		"c/values.schema.json": []byte(`{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"replicas": {"$ref": "` + srv.URL + `/replicas.json"}}}`),
		"c/templates/cm.yaml":  []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  replicas: {{ .Values.replicas | quote }}\n"),
	}
	r := renderOne(t, files, rendered.Options{})
	if got := configMapData(t, r); !strings.Contains(got, `replicas: "2"`) {
		t.Errorf("rendered:\n%s", got)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the render made %d requests", n)
	}
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "dependency remote") {
		t.Errorf("problems = %+v, want the missing remote dependency", r.Problems)
	}
}

// TestHelmErrorOnOneLine checks that an error raised through include,
// which Helm v4 writes as a trace of several lines, is one line naming each
// template it passed through and the cause, and that a template's own fail
// message is kept as written.
func TestHelmErrorOnOneLine(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":          []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/templates/_help.tpl": []byte("{{- define \"c.name\" -}}\n{{ include \"missing.name\" . }}\n{{- end -}}\n"),
		"c/templates/cm.yaml":   []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"c.name\" . }}\n"),
	}
	r := renderOne(t, files, rendered.Options{})
	if len(r.Problems) != 1 {
		t.Fatalf("problems = %+v", r.Problems)
	}
	msg := r.Problems[0].Message
	for _, want := range []string{"rendering: c/templates/cm.yaml:4:", "c/templates/_help.tpl:2:", `no template "missing.name"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %q", want, msg)
		}
	}
	if strings.Contains(msg, "\n") || strings.Contains(msg, "  ") {
		t.Errorf("message is not on one line: %q", msg)
	}

	files["c/templates/cm.yaml"] = []byte("{{ fail \"first\\nsecond\" }}\n")
	r = renderOne(t, files, rendered.Options{})
	if len(r.Problems) != 1 || r.Problems[0].Message != "rendering: execution error at (c/templates/cm.yaml:1:3): first\nsecond" {
		t.Errorf("fail message: problems = %+v", r.Problems)
	}
}

// TestHelmNullValues checks how nulls reach templates under Helm v4: a null
// in the chart's own values.yaml is dropped from .Values (v3 kept it as
// null), and a null in a values set deletes the chart's default, as
// `helm template -f` does.
func TestHelmNullValues(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":        []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"),
		"c/values.yaml":       []byte("resources:\n  limits:\n  requests:\n    cpu: 1m\n    memory: 16Mi\n"),
		"c/values-nomem.yaml": []byte("resources:\n  requests:\n    memory: null\n"),
		"c/templates/cm.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  resources: {{ toYaml .Values.resources | quote }}
`),
	}
	res := Run(context.Background(), files, rendered.Options{})
	if len(res.Renders) != 2 {
		t.Fatalf("renders = %d, want 2", len(res.Renders))
	}
	want := map[string]string{
		"":                    `resources: "requests:\n  cpu: 1m\n  memory: 16Mi"`,
		"c/values-nomem.yaml": `resources: "requests:\n  cpu: 1m"`,
	}
	for _, r := range res.Renders {
		set := strings.Join(r.ValuesFiles, ",")
		if got := configMapData(t, r); !strings.Contains(got, want[set]) {
			t.Errorf("with %q: want %s in:\n%s", set, want[set], got)
		}
	}
}
