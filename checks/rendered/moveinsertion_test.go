package rendered

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/edit"
	"go.yaml.in/yaml/v3"
)

// TestMovedInsertions checks where keys appended to a container that ends
// with a templated key may go instead: after each other entry of the
// container, the nearest first, never before its "- name:" line (whose
// dash must stay first) nor into the pod spec above it; and that a list
// item, or keys of another mapping, are not moved at all.
func TestMovedInsertions(t *testing.T) {
	doc := []byte(`spec:
  containers:
    - name: web
      image: nginx:1.27
      args:
      - serve
      ports:
        - containerPort: 8080
      resources:
        {}
  volumes: []
`)
	rendered := bytes.SplitAfter(doc, []byte("\n"))
	appended := edit.Change{StartLine: 10, EndLine: 10, Text: "        {}\n      securityContext:\n        runAsNonRoot: true\n"}
	moved, parent := movedInsertions(appended, rendered)
	var after []int
	for _, m := range moved {
		after = append(after, m.StartLine)
		if m.Text != string(rendered[m.StartLine-1])+"      securityContext:\n        runAsNonRoot: true\n" {
			t.Errorf("moved after line %d: %q, want that line and the same keys", m.StartLine, m.Text)
		}
	}
	// After its own anchor (10), the ports entry (8), the args entry (6),
	// the image (4) and the name (3); not after line 2, the pod spec's
	// containers: key.
	if want := []int{10, 8, 6, 4, 3}; !slices.Equal(after, want) {
		t.Errorf("moved after lines %v, want %v", after, want)
	}
	if parent != 3 {
		t.Errorf("parent line %d, want 3 (the item's - name: line)", parent)
	}
	for _, c := range []edit.Change{
		{StartLine: 6, EndLine: 6, Text: "      - serve\n      - --verbose\n"},         // a list item
		{StartLine: 4, EndLine: 4, Text: "      image: nginx:1.27\n"},                  // nothing inserted
		{StartLine: 4, EndLine: 5, Text: "      image: nginx:1.27\n      tty: true\n"}, // not after one line
	} {
		if moved, _ := movedInsertions(c, rendered); len(moved) > 0 {
			t.Errorf("%+v moved to %+v, want nowhere", c, moved)
		}
	}
}

// TestBlocksClosed checks the template blocks an insertion may sit among:
// those opened and closed before it, not inside one, nor after the end of
// one opened before its parent line.
func TestBlocksClosed(t *testing.T) {
	for _, tc := range []struct {
		lines string
		want  bool
	}{
		{"- name: web\n  image: x\n", true},
		{"- name: web\n  {{- if .Values.p }}\n  ports: []\n  {{- end }}\n  image: x\n", true},
		{"- name: web\n  {{- if .Values.p }}\n  ports: []\n", false},
		{"- name: web\n  {{- end }}\n  image: x\n", false},
		{"- name: {{ if .a }}a{{ else }}b{{ end }}\n  {{- with .Values.x }}{{ . }}{{ end }}\n", true},
		{"- name: web\n  {{- range .Values.ports }}\n", false},
		{"- name: web\n  {{- /* if it were */}}\n", true},
		{"- name: web\n  {{- /* like {{- if $v }} */ -}}\n  image: x\n", true},
		{"- name: web\n  {{- else }}\n  image: x\n", false},
		{"- name: web\n  {{- if .a }}\n  x: 1\n  {{- else }}\n  y: 1\n  {{- end }}\n", true},
	} {
		if got := blocksClosed(bytes.SplitAfter([]byte(tc.lines), []byte("\n"))); got != tc.want {
			t.Errorf("blocksClosed(%q) = %v, want %v", tc.lines, got, tc.want)
		}
	}
}

// TestMergeInsertions checks that two insertions after one line become
// one change, the deeper keys first, and that other changes stay.
func TestMergeInsertions(t *testing.T) {
	got := mergeInsertions([]edit.Change{
		{StartLine: 7, EndLine: 7, Text: "    timeoutSeconds: 1\n  securityContext: {}\n"},
		{StartLine: 3, EndLine: 3, Text: "  replicas: 3\n"},
		{StartLine: 7, EndLine: 7, Text: "    timeoutSeconds: 1\n    periodSeconds: 20\n"},
	})
	want := []edit.Change{
		{StartLine: 3, EndLine: 3, Text: "  replicas: 3\n"},
		{StartLine: 7, EndLine: 7, Text: "    timeoutSeconds: 1\n    periodSeconds: 20\n  securityContext: {}\n"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("mergeInsertions = %+v, want %+v", got, want)
	}
}

// TestBlockStack checks which blocks are open at a template line: those
// opened above it and not closed, a branch named by its else line, and
// none for a comment that quotes an action; and which of them set the
// dot (range, not if).
func TestBlockStack(t *testing.T) {
	tmpl := bytes.SplitAfter([]byte(`{{- if .Values.a }}
a: 1
{{- /* {{- with .x }} */}}
{{- else if .Values.b }}
{{- range .Values.c }}
c: {{ . }}
{{- end }}
b: 1
{{- end }}
d: 1
`), []byte("\n"))
	for _, tc := range []struct {
		line int
		want []int
		dot  []int
	}{{2, []int{1}, nil}, {3, []int{1}, nil}, {6, []int{4, 5}, []int{5}}, {8, []int{4}, nil}, {10, nil, nil}} {
		if got := blockStack(tmpl, tc.line, false); !slices.Equal(got, tc.want) {
			t.Errorf("blockStack at line %d = %v, want %v", tc.line, got, tc.want)
		}
		if got := blockStack(tmpl, tc.line, true); !slices.Equal(got, tc.dot) {
			t.Errorf("blockStack of the dot at line %d = %v, want %v", tc.line, got, tc.dot)
		}
	}
}

// TestCopyActions checks when inserted lines that copy an action's output
// are written as that action: whole, as the whole value of the key above
// them, re-indented; not in part, and not where the template's dot is
// another (inside a range the action is outside of).
func TestCopyActions(t *testing.T) {
	tmpl := "spec:\n  selector:\n    matchLabels:\n      {{- include \"sel\" . | nindent 6 }}\n  template:\n    spec:\n      {{- range .Values.extra }}\n      x: 1\n      {{- end }}\n      containers: []\n"
	files := Files{"t.yaml": []byte(tmpl)}
	outs := []actionOutput{{file: "t.yaml", line: 4, text: "      {{- include \"sel\" . | nindent 6 }}", lines: []string{"      app: web", "      tier: a"}, indent: 6}}
	ins := "      topologySpreadConstraints:\n        - labelSelector:\n            matchLabels:\n              app: web\n              tier: a\n          maxSkew: 1\n"
	for _, tc := range []struct {
		name string
		at   int
		text string
		want string
	}{
		{"whole", 10, ins + "      containers: []\n", "            matchLabels:\n              {{- include \"sel\" . | nindent 14 }}\n          maxSkew: 1\n"},
		{"in part", 10, strings.Replace(ins, "              tier: a\n", "", 1) + "      containers: []\n", "              app: web\n"},
		{"more than it", 10, strings.Replace(ins, "              tier: a\n", "              tier: a\n              zone: b\n", 1) + "      containers: []\n", "              zone: b\n"},
		{"inside a range", 8, "      x: 1\n" + ins, "              app: web\n"},
	} {
		got := copyActions([]edit.Change{{StartLine: tc.at, EndLine: tc.at, Text: tc.text}}, "t.yaml", outs, files)
		if len(got) != 1 || !strings.Contains(got[0].Text, tc.want) {
			t.Errorf("%s: %q, want it to hold %q", tc.name, got[0].Text, tc.want)
		}
	}
}

// TestInsertedKeys checks which keys a change inserts into its mapping:
// those of its outermost lines, not those of a sequence item it appends
// (a second topologySpreadConstraint holds the keys of the first).
func TestInsertedKeys(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"  a: 1\n  lifecycle:\n    preStop: {}\n", []string{"lifecycle"}},
		{"  - pod-template-hash\n  - maxSkew: 1\n    topologyKey: zone\n", nil},
		{"  matchLabelKeys:\n  - pod-template-hash\n", []string{"matchLabelKeys"}},
	} {
		if got, _ := insertedKeys(tc.text, map[string]bool{"  a: 1\n": true, "  - pod-template-hash\n": true}); !slices.Equal(got, tc.want) {
			t.Errorf("insertedKeys(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestKeyLines checks the lines keyLines names: every key, and the scalar
// items of a block sequence, each on its own line; not the items of a flow
// sequence, which share their key's line (that line holds one key).
func TestKeyLines(t *testing.T) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte("a: 1\nargs: [--x, --y]\nkeys:\n  - pod-template-hash\n  - name: n\n"), &root); err != nil {
		t.Fatal(err)
	}
	var got []string
	keyLines(root.Content[0], func(line int, p string) { got = append(got, fmt.Sprintf("%d %s", line, p)) })
	want := []string{"1 a", "2 args", "3 keys", "4 keys[0]", "5 keys[1].name"}
	if !slices.Equal(got, want) {
		t.Errorf("keyLines: %q, want %q", got, want)
	}
}

// TestWrittenElsewhereReadsTheMapping checks that a key inserted into a
// template's mapping is refused where a line of that same mapping writes
// it (in a conditional block, or as a sequence item's first key), and not
// where another mapping of the document does (the pod's securityContext
// beside a container's, another container's probe). The template's keys
// are made up to be told apart.
func TestWrittenElsewhereReadsTheMapping(t *testing.T) {
	tmpl := `spec:
  template:
    spec:
      {{- with .Values.podSecurityContext }}
      seccompProfile:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: web
          image: web
{{- if .Values.hardened }}
          securityContext:
            readOnlyRootFilesystem: true
{{- end }}
          livenessProbe:
            httpGet: {path: /, port: 80}
        - periodSeconds: 3
          name: sidecar
          livenessProbe:
            periodSeconds: 10
`
	lines := bytes.SplitAfter([]byte(tmpl), []byte("\n"))
	for _, tc := range []struct {
		name     string
		at, want int
		key      string
		refused  bool
	}{
		{"container securityContext, written under a condition", 10, 10, "securityContext", true},
		{"pod securityContext, a container writes one", 7, 6, "securityContext", false},
		{"pod seccompProfile, written under a condition", 7, 6, "seccompProfile", true},
		{"web's probe periodSeconds, the sidecar's probe has one", 16, 12, "periodSeconds", false},
		{"the sidecar's probe periodSeconds, written there", 19, 12, "periodSeconds", true},
		{"the sidecar's periodSeconds, its item's first key", 18, 10, "periodSeconds", true},
	} {
		if got := writtenElsewhere(lines, tc.at, tc.at, tc.at, tc.want, []string{tc.key}); got != tc.refused {
			t.Errorf("%s: writtenElsewhere = %v, want %v", tc.name, got, tc.refused)
		}
	}
}

// TestMapAfterLocated checks where keys inserted after a rendered line
// that a template line of its own wrote go in the template: right after
// that line when it writes a whole entry of their mapping, indented as
// rendered, and nothing after it may write onto the line; nowhere when
// the entry's value may go on below it (`volumes:`), when the template
// line is indented as it is included, when it trims the line break after
// it, or when the next line trims the one before it to write on it.
func TestMapAfterLocated(t *testing.T) {
	rendered := [][]byte{
		[]byte("metadata:\n"),
		[]byte("  labels:\n"),
		[]byte("    release: prod\n"),
		[]byte("  volumes:\n"),
	}
	located := literalLines{3: {"t.yaml", 2}, 4: {"t.yaml", 2}}
	for _, tc := range []struct {
		name, tmpl string
		line       int
		want       bool
	}{
		{"a whole entry", "  labels:\n    release: {{ .Release.Name }}\n  {{- with .Values.x }}\n", 3, true},
		{"the next line's block starts on a line of its own", "  labels:\n    release: {{ .Release.Name }}\n{{- if .Values.x }}\n", 3, true},
		{"the next line indents with nindent", "  labels:\n    release: {{ .Release.Name }}\n    {{- toYaml .Values.x | nindent 4 }}\n", 3, true},
		{"the next line writes onto it", "  labels:\n    release: {{ .Release.Name }}\n    {{- if .Values.canary }}-canary{{ end }}\n", 3, false},
		{"the line trims the break after it", "  labels:\n    release: {{ .Release.Name -}}\n", 3, false},
		{"indented as included", "  labels:\n  release: {{ .Release.Name }}\n", 3, false},
		{"a value that may go on below", "  labels:\n  volumes:\n  {{- range .Values.v }}\n", 4, false},
	} {
		files := Files{"t.yaml": []byte(tc.tmpl)}
		text := string(rendered[tc.line-1])
		ins := "    app.kubernetes.io/name: web\n"
		if tc.line == 4 {
			ins = "  tolerations: []\n"
		}
		mc, ok := mapAfterLocated(edit.Change{StartLine: tc.line, EndLine: tc.line, Text: text + ins}, located, rendered, files)
		if ok != tc.want {
			t.Errorf("%s: %v %+v, want %v", tc.name, ok, mc, tc.want)
			continue
		}
		if ok && (mc.at != 2 || mc.change.StartLine != 2 || !strings.HasSuffix(mc.change.Text, "}}\n"+ins)) {
			t.Errorf("%s: %+v, want line 2 followed by the keys", tc.name, mc)
		}
	}
}
