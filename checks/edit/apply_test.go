package edit

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
)

type applyCase struct {
	name string
	src  string
	doc  int
	ops  []Op
	want string
	// data, when set, is the intended data of document doc after the edit
	// (any YAML, often flow style), checked independently of the text.
	data string
}

func set(path, value string, after ...string) Op {
	return Op{Action: Set, Path: split(path), Value: value, After: after}
}

func appendOp(path, value string) Op { return Op{Action: Append, Path: split(path), Value: value} }

func del(path string) Op { return Op{Action: Delete, Path: split(path)} }

func split(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, ".")
}

// decodeDocs decodes every document of src into plain Go values.
func decodeDocs(t *testing.T, src []byte) []any {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var out []any
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("result does not parse: %v\n%s", err, src)
		}
		out = append(out, v)
	}
}

// checkApply runs one case and the checks every result must pass.
func checkApply(t *testing.T, tc applyCase) {
	t.Helper()
	got, err := Apply([]byte(tc.src), tc.doc, tc.ops)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if diff := cmp.Diff(tc.want, string(got)); diff != "" {
		t.Errorf("Apply (-want +got):\n%s\ngot text:\n%s", diff, got)
	}
	checkResult(t, []byte(tc.src), got, tc.doc)
	if tc.data != "" {
		var want any
		if err := yaml.Unmarshal([]byte(tc.data), &want); err != nil {
			t.Fatalf("bad data in test: %v", err)
		}
		docs := decodeDocs(t, got)
		if diff := cmp.Diff(want, docs[tc.doc]); diff != "" {
			t.Errorf("data of document %d (-want +got):\n%s", tc.doc, diff)
		}
	}
	// The edit as suggestions gives back the same file.
	if back := ApplyChanges([]byte(tc.src), Changes([]byte(tc.src), got)); !bytes.Equal(back, got) {
		t.Errorf("ApplyChanges(Changes) = %q, want %q", back, got)
	}
}

// checkResult checks that got parses, has as many documents as src, and
// that every document but doc is byte-identical.
func checkResult(t *testing.T, src, got []byte, doc int) {
	t.Helper()
	before, after := decodeDocs(t, src), decodeDocs(t, got)
	if len(before) != len(after) {
		t.Fatalf("document count changed from %d to %d", len(before), len(after))
	}
	sl, gl := splitLines(src), splitLines(got)
	sd, gd := documents(sl), documents(gl)
	for i := range sd {
		if i == doc {
			continue
		}
		if a, b := joinLines(sl[sd[i].start:sd[i].end]), joinLines(gl[gd[i].start:gd[i].end]); !bytes.Equal(a, b) {
			t.Errorf("document %d changed:\n%q\n%q", i, a, b)
		}
	}
}

func TestApply(t *testing.T) {
	for _, tc := range applyCases {
		t.Run(tc.name, func(t *testing.T) { checkApply(t, tc) })
	}
}

var applyCases = []applyCase{
	{
		name: "replace scalar",
		src:  "spec:\n  replicas: 1\n  x: y\n",
		ops:  []Op{set("spec.replicas", "3")},
		want: "spec:\n  replicas: 3\n  x: y\n",
		data: "{spec: {replicas: 3, x: y}}",
	},
	{
		name: "replaced value's line comment stays, and the others",
		src:  "# head\nspec: # spec comment\n  # about replicas\n  replicas: 1 # one is too few\n  x: y # keep\n",
		ops:  []Op{set("spec.replicas", "3")},
		want: "# head\nspec: # spec comment\n  # about replicas\n  replicas: 3 # one is too few\n  x: y # keep\n",
	},
	{
		name: "comment option on a replaced key",
		src:  "spec:\n  replicas: 1 # old\n",
		ops:  []Op{{Action: Set, Path: []string{"spec", "replicas"}, Value: "2", Comment: "at least two\nfor HA"}},
		want: "spec:\n  replicas: 2 # at least two for HA\n",
	},
	{
		name: "set equal value is a no-op byte for byte",
		src:  "spec:\n  replicas: 3   # fine\n  y: 'q'\n",
		ops:  []Op{set("spec.replicas", "3"), set("spec.y", `"q"`)},
		want: "spec:\n  replicas: 3   # fine\n  y: 'q'\n",
	},
	{
		name: "insert at end of mapping, indent 2",
		src:  "spec:\n  a: 1\n  b: 2\nz: 0\n",
		ops:  []Op{set("spec.c", "3")},
		want: "spec:\n  a: 1\n  b: 2\n  c: 3\nz: 0\n",
	},
	{
		name: "insert after listed key",
		src:  "spec:\n  a: 1\n  b: 2\n  c: 3\n",
		ops:  []Op{set("spec.n", "9", "b", "a", "missing")},
		want: "spec:\n  a: 1\n  b: 2\n  n: 9\n  c: 3\n",
	},
	{
		name: "indent 4 and indented list",
		src:  "spec:\n    containers:\n        -   name: a\n            image: x\n",
		ops: []Op{set("spec.containers.0.resources.limits.cpu", "100m"),
			appendOp("spec.containers", "name: b\nports:\n  - containerPort: 80\n")},
		want: "spec:\n    containers:\n        -   name: a\n            image: x\n            resources:\n                limits:\n                    cpu: 100m\n" +
			"        -   name: b\n            ports:\n                -   containerPort: 80\n",
		data: "{spec: {containers: [{name: a, image: x, resources: {limits: {cpu: 100m}}}, {name: b, ports: [{containerPort: 80}]}]}}",
	},
	{
		name: "flush list",
		src:  "spec:\n  containers:\n  - name: a\n    args:\n    - x\n",
		ops:  []Op{appendOp("spec.containers.0.args", "y"), appendOp("spec.containers.0.env", "{name: A, value: '1'}")},
		want: "spec:\n  containers:\n  - name: a\n    args:\n    - x\n    - y\n    env:\n    - {name: A, value: '1'}\n",
	},
	{
		name: "block value from multi-line Value text is re-indented",
		src:  "spec:\n    containers:\n    -   name: a\n",
		ops:  []Op{set("spec.containers.0.readinessProbe", "tcpSocket:\n  port: 8080\nperiodSeconds: 5\n")},
		want: "spec:\n    containers:\n    -   name: a\n        readinessProbe:\n            tcpSocket:\n                port: 8080\n            periodSeconds: 5\n",
	},
	{
		name: "crlf stays crlf",
		src:  "a: 1\r\nb:\r\n  c: 2\r\n",
		ops:  []Op{set("b.d", "3"), set("a", "5")},
		want: "a: 5\r\nb:\r\n  c: 2\r\n  d: 3\r\n",
	},
	{
		name: "leading document separator kept",
		src:  "---\napiVersion: v1\nkind: Pod\n",
		ops:  []Op{set("metadata.name", "p")},
		want: "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n",
	},
	{
		name: "blank lines kept",
		src:  "a: 1\n\nb:\n  c: 1\n\n  d: 2\n\ne: 3\n",
		ops:  []Op{set("b.f", "4")},
		want: "a: 1\n\nb:\n  c: 1\n\n  d: 2\n  f: 4\n\ne: 3\n",
	},
	{
		name: "insert into empty flow mapping",
		src:  "spec:\n  resources: {}\n  x: 1\n",
		ops:  []Op{set("spec.resources.limits.memory", "128Mi")},
		want: "spec:\n  resources:\n    limits:\n      memory: 128Mi\n  x: 1\n",
	},
	{
		name: "insert into null value",
		src:  "spec:\n  resources:\n  x: 1\n",
		ops:  []Op{set("spec.resources.limits.memory", "128Mi")},
		want: "spec:\n  resources:\n    limits:\n      memory: 128Mi\n  x: 1\n",
	},
	{
		name: "set inside a non-empty flow mapping stays flow",
		src:  "limits: {cpu: 1, memory: \"1Gi\"} # c\n",
		ops:  []Op{set("limits.cpu", "2")},
		want: "limits: {cpu: 2, memory: \"1Gi\"} # c\n",
	},
	{
		name: "append to flow list",
		src:  "drop: [a, b]\n",
		ops:  []Op{appendOp("drop", "c")},
		want: "drop: [a, b, c]\n",
	},
	{
		name: "append to empty flow list becomes block",
		src:  "spec:\n  drop: []\n",
		ops:  []Op{appendOp("spec.drop", "ALL")},
		want: "spec:\n  drop:\n  - ALL\n",
	},
	{
		name: "last key of a doc followed by another doc",
		src:  "a: 1\nb:\n  c: 2\n---\nd: 4\n",
		ops:  []Op{set("b.e", "5")},
		want: "a: 1\nb:\n  c: 2\n  e: 5\n---\nd: 4\n",
	},
	{
		name: "quoted key names",
		src:  "metadata:\n  annotations:\n    \"app.kubernetes.io/name\": x\n    'b': y\n",
		ops:  []Op{set("metadata.annotations.app.kubernetes.io/name", "z")},
		want: "metadata:\n  annotations:\n    \"app.kubernetes.io/name\": x\n    'b': y\n    app:\n      kubernetes:\n        io/name: z\n",
	},
	{
		name: "quoted key by path element",
		src:  "m:\n  \"a b\": x # old\n  'c': y\n",
		ops:  []Op{{Action: Set, Path: []string{"m", "a b"}, Value: "z"}, {Action: Set, Path: []string{"m", "c"}, Value: "w"}},
		want: "m:\n  \"a b\": z # old\n  'c': w\n",
	},
	{
		name: "nested path needs three new parent maps",
		src:  "spec:\n  x: 1\n",
		ops:  []Op{set("spec.template.spec.securityContext.runAsNonRoot", "true")},
		want: "spec:\n  x: 1\n  template:\n    spec:\n      securityContext:\n        runAsNonRoot: true\n",
		data: "{spec: {x: 1, template: {spec: {securityContext: {runAsNonRoot: true}}}}}",
	},
	{
		name: "delete the only key of a mapping",
		src:  "spec:\n  securityContext:\n    privileged: true # bad\n  x: 1\n",
		ops:  []Op{del("spec.securityContext.privileged")},
		want: "spec:\n  securityContext: {}\n  x: 1\n",
	},
	{
		name: "delete a key with its block and head comment",
		src:  "a: 1\n# about b\nb:\n  c: 2\n  # commented-out d\n  # d: 3\nz: 9\n",
		ops:  []Op{del("b")},
		want: "a: 1\nz: 9\n",
	},
	{
		name: "delete a list item",
		src:  "l:\n- a\n# about b\n- b # bee\n- c\n",
		ops:  []Op{del("l.1")},
		want: "l:\n- a\n- c\n",
	},
	{
		name: "delete the first key of a list item moves the next up",
		src:  "l:\n  - name: a # n\n    image: x\n  - name: b\n",
		ops:  []Op{del("l.0.name")},
		want: "l:\n  - image: x\n  - name: b\n",
	},
	{
		name: "delete the only item",
		src:  "l:\n  - a\nm: 1\n",
		ops:  []Op{del("l.0")},
		want: "l: []\nm: 1\n",
	},
	{
		name: "delete missing path is a no-op",
		src:  "a: 1 # x\n",
		ops:  []Op{del("b.c"), del("a.b"), del("a.0")},
		want: "a: 1 # x\n",
	},
	{
		name: "multi-document: only doc 1 changes",
		src:  "# zero\na: 0 # c\n---\nb: 1\n---\n  c: 2   \n...\n",
		doc:  1,
		ops:  []Op{set("b", "2"), set("n", "x")},
		want: "# zero\na: 0 # c\n---\nb: 2\nn: x\n---\n  c: 2   \n...\n",
	},
	{
		name: "no trailing newline stays missing",
		src:  "a:\n  b: 1",
		ops:  []Op{set("a.c", "2")},
		want: "a:\n  b: 1\n  c: 2",
	},
	{
		name: "no trailing newline, edit in the middle",
		src:  "a:\n  b: 1\nz: 2",
		ops:  []Op{set("a.c", "2")},
		want: "a:\n  b: 1\n  c: 2\nz: 2",
	},
	{
		name: "no trailing newline, delete the last key",
		src:  "a: 1\nb: 2",
		ops:  []Op{del("b")},
		want: "a: 1",
	},
	{
		name: "string values that look like other types are quoted",
		src:  "env:\n- name: A\n",
		ops:  []Op{set("env.0.value", `"8080"`), set("env.0.on", "'true'")},
		want: "env:\n- name: A\n  value: \"8080\"\n  on: 'true'\n",
		data: "{env: [{name: A, value: '8080', on: 'true'}]}",
	},
	{
		name: "multi-line string value",
		src:  "data:\n  a: 1\n",
		ops:  []Op{set("data.script", "|\n  echo hi\n  # not a comment\n  exit 0\n"), set("data.z", "1")},
		want: "data:\n  a: 1\n  script: |\n    echo hi\n    # not a comment\n    exit 0\n  z: 1\n",
		data: "{data: {a: 1, script: \"echo hi\\n# not a comment\\nexit 0\\n\", z: 1}}",
	},
	{
		name: "replace a block with a scalar and a scalar with a block",
		src:  "a:\n  b: 1\n  c: 2\nd: x # old\ne: 1\n",
		ops:  []Op{set("a", "5"), set("d", "k: v")},
		want: "a: 5\nd: # old\n  k: v\ne: 1\n",
	},
	{
		name: "set a sequence item",
		src:  "l:\n- a # old a\n- b\n",
		ops:  []Op{set("l.0", "z")},
		want: "l:\n- z # old a\n- b\n",
	},
	{
		name: "set an item to a mapping",
		src:  "l:\n  - a\n  - b\n",
		ops:  []Op{set("l.1", "name: x\nport: 1")},
		want: "l:\n  - a\n  - name: x\n    port: 1\n",
	},
	{
		name: "append creates a missing sequence",
		src:  "spec:\n  containers:\n    - name: a\n",
		ops:  []Op{appendOp("spec.volumes", "name: tmp\nemptyDir: {}")},
		want: "spec:\n  containers:\n    - name: a\n  volumes:\n    - name: tmp\n      emptyDir: {}\n",
	},
	{
		name: "empty document",
		src:  "a: 1\n---\n",
		doc:  1,
		ops:  []Op{set("kind", "Pod")},
		want: "a: 1\n---\nkind: Pod\n",
	},
	{
		name: "insert skips trailing comments of the next key",
		src:  "c:\n  image: x\n\n  # about s\ns: 1\n",
		ops:  []Op{set("c.sc.a", "false")},
		want: "c:\n  image: x\n  sc:\n    a: false\n\n  # about s\ns: 1\n",
	},
	{
		name: "block scalar value replaced",
		src:  "a: |\n  x\n  # y\nb: 1\n",
		ops:  []Op{set("a", "z")},
		want: "a: z\nb: 1\n",
	},
	{
		name: "multi-line quoted value replaced",
		src:  "a: \"x\n  # y\"\nb: 1\n",
		ops:  []Op{set("a", "z")},
		want: "a: z\nb: 1\n",
	},
	{
		name: "non-ascii before the value",
		src:  "名前: x # c\nb: 1\n",
		ops:  []Op{set("名前", "y")},
		want: "名前: y # c\nb: 1\n",
	},
	{
		name: "comment on inserted leaf key and on appended item",
		src:  "c:\n  env:\n  - name: A\n",
		ops: []Op{{Action: Set, Path: split("c.resources.limits.cpu"), Value: "100m", Comment: "starting point"},
			{Action: Append, Path: split("c.env"), Value: "name: B", Comment: "added"}},
		want: "c:\n  env:\n  - name: A\n  - name: B # added\n  resources:\n    limits:\n      cpu: 100m # starting point\n",
	},
	{
		name: "root flow mapping stays flow",
		src:  "# c\n{a: 1}\n",
		ops:  []Op{set("b", "2")},
		want: "# c\n{a: 1, b: 2}\n",
	},
	{
		name: "document closed by ... gets the key before it",
		src:  "a: 1\n# end\n...\n---\nb: 2\n",
		ops:  []Op{set("c", "3")},
		want: "a: 1\nc: 3\n# end\n...\n---\nb: 2\n",
	},
	{
		name: "empty document with a comment",
		src:  "a: 1\n---\n# nothing yet\n",
		doc:  1,
		ops:  []Op{appendOp("items", "x")},
		want: "a: 1\n---\n# nothing yet\nitems:\n- x\n",
	},
	{
		name: "delete between blank lines keeps one blank line",
		src:  "a: 1\n\nb:\n  c: 2\n\nd: 4\n",
		ops:  []Op{del("b")},
		want: "a: 1\n\nd: 4\n",
	},
	{
		name: "trailing spaces and odd spacing on untouched lines stay",
		src:  "a:   1   \nb :\n  c:  'x'  # q\n",
		ops:  []Op{set("b.d", "y")},
		want: "a:   1   \nb :\n  c:  'x'  # q\n  d: y\n",
	},
	{
		name: "anchored value elsewhere is untouched",
		src:  "base: &b\n  x: 1\nuse: *b\nother: 1\n",
		ops:  []Op{set("other", "2")},
		want: "base: &b\n  x: 1\nuse: *b\nother: 2\n",
	},
	{
		name: "comments in the Value text are kept and re-indented",
		src:  "c:\n  image: x\n",
		ops:  []Op{set("c.probe", "# probe\ntcpSocket: # sock\n  # the port\n  port: 8080 # p\n# foot\nperiod: 1\n")},
		want: "c:\n  image: x\n  probe:\n    # probe\n    tcpSocket: # sock\n      # the port\n      port: 8080 # p\n    # foot\n    period: 1\n",
	},
	{
		name: "delete the only key of a list item",
		src:  "l:\n- name: a\n- name: b\n",
		ops:  []Op{del("l.0.name")},
		want: "l:\n- {}\n- name: b\n",
	},
	{
		name: "multi-line flow mapping rewritten in flow",
		src:  "resources: {\n  limits: {cpu: 1}\n}\nz: 1\n",
		ops:  []Op{set("resources.limits.memory", "1Gi")},
		want: "resources: {limits: {cpu: 1, memory: 1Gi}}\nz: 1\n",
	},
	{
		name: "set inside a mapping inside a flow list",
		src:  "items: [{a: 1}, b]\n",
		ops:  []Op{set("items.0.c", "2")},
		want: "items: [{a: 1, c: 2}, b]\n",
	},
	{
		name: "replace an alias value",
		src:  "base: &b 1\nuse: *b\n",
		ops:  []Op{set("use", "2")},
		want: "base: &b 1\nuse: 2\n",
	},
	{
		name: "crlf without final newline",
		src:  "a:\r\n  b: 1",
		ops:  []Op{set("a.c", "2"), set("a.b", "3")},
		want: "a:\r\n  b: 3\r\n  c: 2",
	},
	{
		name: "null key at the very end without final newline",
		src:  "a: 1\nb:",
		ops:  []Op{set("b.c", "2")},
		want: "a: 1\nb:\n  c: 2",
	},
	{
		name: "several ops in order, each seeing the last",
		src:  "spec:\n  containers:\n  - name: a\n",
		ops: []Op{set("spec.containers.0.securityContext.privileged", "true"),
			set("spec.containers.0.securityContext.privileged", "false"),
			set("spec.containers.0.securityContext.allowPrivilegeEscalation", "false", "privileged"),
			del("spec.containers.0.securityContext.privileged")},
		want: "spec:\n  containers:\n  - name: a\n    securityContext:\n      allowPrivilegeEscalation: false\n",
	},
	{
		name: "keep-chomping block scalar keeps its trailing blank lines",
		src:  "a: |+\n  x\n\nb: 1\n",
		ops:  []Op{set("c", "2", "a")},
		want: "a: |+\n  x\n\nc: 2\nb: 1\n",
		data: "{a: \"x\\n\\n\", c: 2, b: 1}",
	},
	{
		name: "comments inside and under a replaced block go with it",
		src:  "resources:\n  limits:\n    # cpu first\n    cpu: 1\n  # requests:\n  #   cpu: 1\n# about next\nnext: x\n",
		ops:  []Op{set("resources", "{}")},
		want: "resources: {}\n# about next\nnext: x\n",
	},
	{
		name: "delete the first entry leaves no gap under the parent",
		src:  "spec:\n  a: 1\n\n  b: 2\n",
		ops:  []Op{del("spec.a")},
		want: "spec:\n  b: 2\n",
	},
}

// TestSpliceLeavesThePreviousLinesAlone checks that a splice builds new
// lines and changes none of the old ones: when a block scalar's edit fails
// its check, Apply tries the op again from the lines it had before, so a
// line ending changed in place (joining two lines, or adding a final
// newline) would be carried into the second try.
func TestSpliceLeavesThePreviousLinesAlone(t *testing.T) {
	for _, c := range []struct {
		name string
		s, e int
		repl []string
		want string
	}{
		{"replace the last line, no final newline", 3, 3, []string{"c: 3", "d: 4"}, "a: 1\nb: 2\nc: 3\nd: 4"},
		{"delete the last line, no final newline", 3, 3, nil, "a: 1\nb: 2"},
		{"append after a last line with no newline", 4, 3, []string{"d: 4"}, "a: 1\nb: 2\nc: 3\nd: 4"},
		{"insert in the middle", 2, 1, []string{"x: 0"}, "a: 1\nx: 0\nb: 2\nc: 3"},
	} {
		src := "a: 1\nb: 2\nc: 3"
		ed := &editor{lines: splitLines([]byte(src)), eol: "\n"}
		before := ed.lines
		if err := ed.splice(c.s, c.e, c.repl); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := string(joinLines(ed.lines)); got != c.want {
			t.Errorf("%s: spliced text %q, want %q", c.name, got, c.want)
		}
		if got := string(joinLines(before)); got != src {
			t.Errorf("%s: the lines before the splice now read %q, want %q", c.name, got, src)
		}
	}
}

// TestPathCopyLeavesTheTree applies every case's ops to its document's
// tree through pathCopy, as apply does, and through a whole copy: the data
// and the errors must agree, and the tree must be left as it was.
func TestPathCopyLeavesTheTree(t *testing.T) {
	for _, tc := range slices.Concat(applyCases, commentCases) {
		f, err := NewFile([]byte(tc.src))
		if err != nil || tc.doc >= len(f.docs) {
			continue
		}
		var d yaml.Node
		if err := yaml.Unmarshal(joinLines(f.docs[tc.doc]), &d); err != nil || len(d.Content) != 1 {
			continue
		}
		root := d.Content[0]
		for _, op := range tc.ops {
			var nv *yaml.Node
			if op.Action != Delete {
				var err error
				if nv, err = parseValue(op.Value); err != nil {
					continue
				}
			}
			before := cloneNode(root)
			got, err := semApply(pathCopy(root, op.Path), op.Path, op, nv)
			want, werr := semApply(cloneNode(root), op.Path, op, nv)
			if fmt.Sprint(err) != fmt.Sprint(werr) || (err == nil && !sameData(got, want)) {
				t.Errorf("%s: %+v: through pathCopy %v, whole copy %v", tc.name, op, err, werr)
			}
			if !reflect.DeepEqual(before, root) {
				t.Errorf("%s: %+v changed the tree it was applied to", tc.name, op)
			}
			if err == nil {
				root = want
			}
		}
	}
}
