package manifest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
)

const deployment = `# leading comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports:
            - containerPort: 8080
`

func TestParsePositionsAcrossDocuments(t *testing.T) {
	src := "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\n" + deployment
	f := Parse("x.yaml", []byte(src), Limits{})
	if len(f.Problems) != 0 {
		t.Fatalf("problems: %+v", f.Problems)
	}
	if len(f.Objects) != 2 {
		t.Fatalf("got %d objects, want 2", len(f.Objects))
	}
	d := f.Objects[1]
	if d.Kind != "Deployment" || d.Name != "web" || d.Namespace != "shop" || d.Doc != 1 {
		t.Fatalf("header: %+v", d)
	}
	if _, ok := d.Typed().(*appsv1.Deployment); !ok {
		t.Fatalf("typed value is %T", d.Typed())
	}
	for _, tc := range []struct {
		path      Path
		line, col int
	}{
		{Path{"kind"}, 9, 1},
		{Path{"spec", "replicas"}, 16, 3},
		{Path{"spec", "template", "spec", "containers", "0"}, 24, 11},
		{Path{"spec", "template", "spec", "containers", "0", "ports", "0", "containerPort"}, 27, 15},
	} {
		line, col, exact := d.Pos(tc.path...)
		if line != tc.line || col != tc.col || !exact {
			t.Errorf("Pos(%s) = %d:%d exact=%v, want %d:%d", tc.path, line, col, exact, tc.line, tc.col)
		}
	}
	// A missing key points at the block that should hold it.
	line, _, exact := d.Pos("spec", "template", "spec", "containers", "0", "readinessProbe")
	if line != 24 || exact {
		t.Errorf("missing key: line %d exact=%v, want the container's line 24", line, exact)
	}
	if got := d.BlockEnd("spec", "template"); got != 27 {
		t.Errorf("BlockEnd(spec.template) = %d, want 27", got)
	}
}

func TestBrokenDocumentDoesNotStopTheFile(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkey: [unclosed\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	f := Parse("x.yaml", []byte(src), Limits{})
	if len(f.Objects) != 2 || f.Objects[0].Name != "a" || f.Objects[1].Name != "c" {
		t.Fatalf("objects around the broken one: %+v", f.Objects)
	}
	if len(f.Problems) != 1 || f.Problems[0].RuleID != ProblemYAML || f.Problems[0].Doc != 1 || f.Problems[0].Line != 5 {
		t.Fatalf("problems: %+v", f.Problems)
	}
}

// TestParseErrorLines checks where parse errors land: a document after a
// bare "---" is read without that line, and its errors must count lines as
// those of a first document do (yaml.v3 numbers them differently when a
// collection starts on the text's first line).
func TestParseErrorLines(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int
	}{
		{"key: [unclosed\n", 2}, // first document: yaml.v3 reports the problem's line
		{"a: 1\n---\nkey: [unclosed\n", 3},
		{"a: 1\n---\na:\n  - b\n - c\n", 3},        // the collection's line
		{"a: 1\n--- # note\na:\n  - b\n - c\n", 3}, // marker with a comment: blanked, not left out
		{"a: 1\n---\n\n\nkey: [unclosed\n", 5},
	} {
		f := Parse("x.yaml", []byte(tc.src), Limits{})
		if len(f.Problems) != 1 || f.Problems[0].Line != tc.line {
			t.Errorf("%q: problems %+v, want one on line %d", tc.src, f.Problems, tc.line)
		}
	}
}

func TestSchemaProblems(t *testing.T) {
	twoContainers := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: a\n      image: a:1\n      ports:\n        - containerPort: 80\n    - name: b\n      image: b:1\n      ports:\n        - containerPort: 81\n        - containerPort: \"82\"\n"
	for _, tc := range []struct {
		name, src, wantMsg string
		wantLine           int
		wantPath           string
	}{
		// The second container's second port, not the first port found.
		{"a wrong type in a later list item", twoContainers, "spec.containers.ports.containerPort must be an integer, not a string", 14, "spec.containers[1].ports[1].containerPort"},
		{"wrong type", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports:\n    - port: \"80\"\n", "must be an integer, not a string", 6, "spec.ports[0].port"},
		{"a list for a mapping", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata:\n  - a\n", "data must be a mapping (map[string]string), not an array", 4, "data"},
		{"unknown field", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  clusterIp: None\n", `unknown field "spec.clusterIp"`, 5, "spec.clusterIp"},
		{"duplicate key", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata:\n  a: x\n  a: y\n", `duplicate key "a"`, 6, "data.a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Parse("x.yaml", []byte(tc.src), Limits{})
			if len(f.Problems) != 1 {
				t.Fatalf("problems: %+v", f.Problems)
			}
			p := f.Problems[0]
			if p.RuleID != ProblemSchema || p.Line != tc.wantLine || !strings.Contains(p.Message, tc.wantMsg) {
				t.Fatalf("got %s at line %d: %s; want %s at line %d containing %q", p.RuleID, p.Line, p.Message, ProblemSchema, tc.wantLine, tc.wantMsg)
			}
			if tc.wantPath != "" && p.Path.String() != tc.wantPath {
				t.Errorf("path %q, want %q", p.Path.String(), tc.wantPath)
			}
			if len(f.Objects) != 1 || f.Objects[0].Typed() != nil {
				t.Fatalf("the object must stay (without a typed value): %+v", f.Objects)
			}
		})
	}
}

func TestNotReportedAsInvalid(t *testing.T) {
	for name, src := range map[string]string{
		"custom resource":     "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {port: \"80\"}\n",
		"kustomization":       "resources:\n  - deployment.yaml\nnamespace: shop\n",
		"non-kubernetes yaml": "global:\n  scrape_interval: 15s\n",
		"placeholder port":    "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports:\n    - port: PORT\n",
		"placeholder size":    "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec:\n  resources:\n    requests:\n      storage: ${SIZE}\n",
		"sops secret":         "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  k: ENC[AES256_GCM,data:abc]\nsops:\n  version: 3.8.1\n",
		"kustomize patch":     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n        - name: x\n          $patch: delete\n",
		"empty documents":     "---\n---\n# only a comment\n---\n",
		"list document":       "- a\n- b\n",
	} {
		t.Run(name, func(t *testing.T) {
			f := Parse("x.yaml", []byte(src), Limits{})
			if len(f.Problems) != 0 {
				t.Fatalf("problems on valid input: %+v", f.Problems)
			}
		})
	}
}

func TestChartTemplatesAreSkipped(t *testing.T) {
	src := []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n")
	f := Parse("charts/app/templates/svc.yaml", src, Limits{})
	if f.Skipped == "" || len(f.Problems) != 0 || len(f.Objects) != 0 {
		t.Fatalf("a chart template must be skipped with a reason: %+v", f)
	}
	f = Parse("other/svc.yaml", []byte("a: {{ broken\n"), Limits{})
	if len(f.Problems) != 1 || !f.Problems[0].Template {
		t.Fatalf("a template outside templates/ that does not parse is a yaml-invalid marked as template: %+v", f.Problems)
	}
}

func TestHostileInputIsBounded(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := 0; i < 9; i++ {
		name := fmt.Sprintf("l%d", i)
		bomb += fmt.Sprintf("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n"
	deepBlock := ""
	for i := 0; i < 1000; i++ {
		deepBlock += strings.Repeat(" ", i) + "k:\n"
	}
	for _, tc := range []struct {
		name, src, want string
	}{
		{"alias bomb", bomb, "alias bomb"},
		{"deep flow nesting", deep, ""},
		{"deep block nesting", deepBlock, "nested deeper"},
		{"NUL byte", "a: b\x00\n", "NUL byte"},
		{"too large", strings.Repeat("a: b\n", 300), "over the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Parse("x.yaml", []byte(tc.src), Limits{MaxFileBytes: 1 << 20, MaxDepth: 256, MaxExpandedNodes: 100000}.tooLargeFor(tc.name))
			if len(f.Problems) != 1 {
				t.Fatalf("want one problem, got %+v", f.Problems)
			}
			if !strings.Contains(f.Problems[0].Message, tc.want) {
				t.Fatalf("message %q does not contain %q", f.Problems[0].Message, tc.want)
			}
		})
	}
}

// tooLargeFor shrinks the size limit for the "too large" case only.
func (l Limits) tooLargeFor(name string) Limits {
	if name == "too large" {
		l.MaxFileBytes = 1000
	}
	return l
}

func TestLineEndingsAndBOM(t *testing.T) {
	crlf := strings.ReplaceAll("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n", "\n", "\r\n")
	f := Parse("x.yaml", []byte(crlf), Limits{})
	if len(f.Problems) != 0 || len(f.Objects) != 2 || f.Objects[1].Name != "d" {
		t.Fatalf("CRLF: %+v %+v", f.Problems, f.Objects)
	}
	if line, _, _ := f.Objects[1].Pos("metadata", "name"); line != 9 {
		t.Fatalf("CRLF line numbers: got %d, want 9", line)
	}
	bom := append([]byte("\xef\xbb\xbf"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")...)
	f = Parse("x.yaml", bom, Limits{})
	if len(f.Problems) != 0 || len(f.Objects) != 1 || f.Objects[0].Kind != "ConfigMap" {
		t.Fatalf("BOM: %+v %+v", f.Problems, f.Objects)
	}
	f = Parse("x.yaml", []byte("a: \xff\xfe\n"), Limits{})
	if len(f.Problems) != 1 {
		t.Fatalf("invalid UTF-8 must be one problem: %+v", f.Problems)
	}
}

// A file in another encoding is one problem that names the encoding and,
// for a byte that is no UTF-8, the place of that byte: not the parser's
// "invalid trailing UTF-8 octet" at 1:1, nor "a NUL byte" for UTF-16.
func TestOtherEncodingsAreNamed(t *testing.T) {
	utf16 := []byte{0xFF, 0xFE}
	for _, c := range "kind: ConfigMap\n" {
		utf16 = append(utf16, byte(c), 0)
	}
	for _, tc := range []struct {
		name      string
		src       []byte
		line, col int
		want      string
	}{
		{"Latin-1 after two-byte characters", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ün-caf\xe9\n"), 4, 15, "byte 0xE9 at line 4, column 15"},
		{"UTF-16 with its byte-order mark", utf16, 1, 1, "file is UTF-16"},
		{"UTF-32 big-endian", []byte{0, 0, 0xFE, 0xFF, 0, 0, 0, 'a'}, 1, 1, "file is UTF-32"},
		{"cut multi-byte character at the end", []byte("a: b\nc: \xc3"), 2, 4, "byte 0xC3 at line 2, column 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Parse("x.yaml", tc.src, Limits{})
			if len(f.Problems) != 1 || len(f.Objects) != 0 {
				t.Fatalf("want one problem and no object, got %+v and %d objects", f.Problems, len(f.Objects))
			}
			p := f.Problems[0]
			if p.RuleID != ProblemYAML || p.Line != tc.line || p.Column != tc.col || !strings.Contains(p.Message, tc.want) {
				t.Fatalf("got %s at %d:%d %q, want %s at %d:%d containing %q", p.RuleID, p.Line, p.Column, p.Message, ProblemYAML, tc.line, tc.col, tc.want)
			}
		})
	}
}

func TestSplitKeepsMarkerLineContent(t *testing.T) {
	f := Parse("x.yaml", []byte("--- {apiVersion: v1, kind: Namespace, metadata: {name: first}}\n...\n--- \napiVersion: v1\nkind: Namespace\nmetadata: {name: second}\n"), Limits{})
	if len(f.Problems) != 0 || len(f.Objects) != 2 || f.Objects[0].Name != "first" || f.Objects[1].Name != "second" {
		t.Fatalf("%+v %+v", f.Problems, f.Objects)
	}
	if !bytes.Equal(f.Source[:3], []byte("---")) {
		t.Fatal("the source must be kept as given")
	}
}

func TestHeaderCommentBelongsToFirstDocument(t *testing.T) {
	src := "# Copyright header\n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n"
	f := Parse("x.yaml", []byte(src), Limits{})
	if f.Docs != 2 || len(f.Objects) != 2 || f.Objects[0].Doc != 0 || f.Objects[1].Doc != 1 {
		t.Fatalf("a header above the first --- is not a document of its own (yaml.v3 agrees): docs=%d %+v", f.Docs, f.Objects)
	}
	if line, _, _ := f.Objects[0].Pos("metadata", "name"); line != 7 {
		t.Fatalf("line numbers after a header: got %d, want 7", line)
	}
}

func TestCRDSpecIsNotParsed(t *testing.T) {
	src := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n  labels: {a: b}\nspec:\n  group: example.com\n  versions:\n    - name: v1\n# a comment at column 0 inside the block\n      served: true\nstatus: {}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: after}\n"
	f := Parse("crd.yaml", []byte(src), Limits{})
	if len(f.Problems) != 0 || len(f.Objects) != 2 {
		t.Fatalf("%+v %+v", f.Problems, f.Objects)
	}
	crd := f.Objects[0]
	if !crd.SpecSkipped || crd.Node("spec") != nil || crd.Name != "widgets.example.com" || crd.Labels["a"] != "b" || crd.Node("status") == nil {
		t.Fatalf("CRD header must be read, spec skipped: %+v", crd)
	}
	if line, _, _ := crd.Pos("status"); line != 12 {
		t.Fatalf("lines after the skipped spec keep their numbers: status at %d, want 12", line)
	}
	if f.Objects[1].SpecSkipped || f.Objects[1].Name != "after" {
		t.Fatal("the next document is parsed whole")
	}
}

// FuzzOnlyComments checks the shortcut parseDocument takes for empty
// documents: whatever onlyComments calls empty, yaml.v3 parses to no
// content and no error.
func FuzzOnlyComments(f *testing.F) {
	for _, s := range []string{"", "\n", "   \n", "# c\n", "  # c\r\n\n", "#\n#x", "\t\n", "a: 1\n", " #\t\n", "\xef\xbb\xbf\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if !onlyComments(text) {
			return
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) > 0 {
			t.Fatalf("onlyComments(%q), but yaml.v3 gives %d nodes, error %v", text, len(doc.Content), err)
		}
	})
}

// TestEmptyDocumentsTakeNoParser checks that a file of many empty
// documents (a million "---" lines fit in the file limit) is read without
// starting yaml.v3's parser for each: it would make kilobytes of garbage a
// document.
func TestEmptyDocumentsTakeNoParser(t *testing.T) {
	src := []byte(strings.Repeat("---\n# nothing here\n\n", 10_000))
	var f *File
	allocs := testing.AllocsPerRun(1, func() { f = Parse("empty.yaml", src, Limits{}) })
	if f.Docs != 10_000 || len(f.Objects) != 0 || len(f.Problems) != 0 {
		t.Fatalf("%d documents, %d objects, %d problems", f.Docs, len(f.Objects), len(f.Problems))
	}
	if perDoc := allocs / 10_000; perDoc > 2 {
		t.Errorf("%.1f allocations a document: each empty document is parsed", perDoc)
	}
}

// kubectlList is what kubectl get -o yaml prints: a List whose items are
// whole objects. The second item's CPU limit is a float, which only the
// text path turns into JSON; the third names no kind; the fourth is not
// an object at all; the last does not match the schema.
const kubectlList = `apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
        - name: web
          image: nginx:1.27
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
  spec:
    containers: [{name: c, image: i, resources: {limits: {cpu: 0.5}}}]
- metadata: {name: no-kind}
- just a string
- apiVersion: v1
  kind: Service
  metadata: {name: s}
  spec:
    ports: [{port: eighty}]
`

// TestListItemsAreObjects checks that a List's items that name their
// kind become objects of their own, at their own lines and path, decoded,
// with the List itself gone; and that the check path parses it as Parse.
func TestListItemsAreObjects(t *testing.T) {
	f := Parse("list.yaml", []byte(kubectlList), Limits{})
	type want struct {
		kind, item     string
		start, end     int
		typed, problem bool
	}
	wants := []want{
		{"Deployment", "items[0]", 6, 17, true, false},
		{"Pod", "items[1]", 18, 24, true, false}, // up to the next object: items 2 and 3 are none
		{"Service", "items[4]", 25, 29, false, true},
	}
	if f.Docs != 1 || len(f.Objects) != len(wants) {
		t.Fatalf("%d documents, %d objects; want 1 and %d", f.Docs, len(f.Objects), len(wants))
	}
	for i, w := range wants {
		o := f.Objects[i]
		if o.Kind != w.kind || o.ListItem.String() != w.item || o.StartLine != w.start || o.EndLine != w.end || o.Doc != 0 {
			t.Errorf("object %d: %s at %s, lines %d-%d, document %d; want %s at %s, lines %d-%d, document 0",
				i, o.Kind, o.ListItem, o.StartLine, o.EndLine, o.Doc, w.kind, w.item, w.start, w.end)
		}
		if (o.Typed() != nil) != w.typed {
			t.Errorf("%s: typed %T", o.Kind, o.Typed())
		}
		if line, _ := o.KindPos(); line != w.start+1 {
			t.Errorf("%s: kind on line %d, want %d", o.Kind, line, w.start+1)
		}
	}
	if len(f.Problems) != 1 || f.Problems[0].RuleID != ProblemSchema || f.Problems[0].Line != 29 || f.Problems[0].Object != f.Objects[2] {
		t.Errorf("problems: %+v; want the Service's port, line 29", f.Problems)
	}
	packed := ParsePacked("list.yaml", []byte(kubectlList), Limits{})
	packed.DecodePending()
	sameParse(t, packed, f)
}
