package edit

import (
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	yaml "go.yaml.in/yaml/v3"
)

// richDoc exercises layouts the engine must handle: comments everywhere,
// flow collections, block scalars, quoted keys and values, blank lines,
// nested lists in both styles.
const richDoc = `# leading comment
apiVersion: apps/v1 # api
kind: Deployment
metadata:
  name: "web"
  labels: {app: web, "tier": 'front'}
  annotations:
    'a.b/c': |
      line one
      # not a comment
    empty: {}

spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    spec:
      # the containers
      containers:
        - name: web # main
          image: nginx
          args: [--a, "--b"]
          env:
          - name: A
            value: "1"

          - name: B
            value: >
              folded
              text
          ports:
            - containerPort: 80
              # trailing comment of port
        - name: side
          resources:
          volumeMounts: []
      volumes:
      - name: tmp
        emptyDir: {}
`

// TestRandomOps applies random ops at paths that exist (and some that do
// not) in several layouts, and requires every result to be the intended
// data (Apply checks that itself and reports a mismatch as an error, so any
// such error fails here) and to keep the other documents.
func TestRandomOps(t *testing.T) {
	seeds := map[string]string{"rich": richDoc}
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seeds[filepath.Base(f)] = string(b)
	}
	for _, c := range applyCases {
		seeds[c.name] = c.src
	}
	for name, s := range seeds {
		if !strings.Contains(s, "\r") {
			seeds[name+" crlf"] = strings.ReplaceAll(s, "\n", "\r\n")
		}
		seeds[name+" indent4"] = reindent(s)
		seeds[name+" in a stream"] = "a: 0\n---\n" + s + "\n---\nz: 1\n"
	}
	values := []string{"x", "8080", `"8080"`, "true", "{}", "[]", "[a, b]", "{k: v}", "k: v\nl:\n- 1\n- 2\n",
		"- a\n- b: c\n", "# c\nk: v # d\n", "a: &x 1\nb: *x\n", "\"multi\\nline\"", "' lead'", "- [a]\n- {b: c}\n", "|\n  text\n  more\n", "'q'", "null", "name: n\nvalue: \"v\"\n"}
	r := rand.New(rand.NewSource(7))
	internal, okCount := 0, 0
	kinds := map[string]int{}
	names := make([]string, 0, len(seeds))
	for name, src := range seeds {
		if _, ok := countDocs([]byte(src)); ok { // reindent can break a seed
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		src := seeds[name]
		docIdx := 0
		if strings.HasSuffix(name, "in a stream") {
			docIdx = 1
		}
		for i := 0; i < 15; i++ {
			cur := []byte(src)
			var applied []Op
			for j := 0; j < 1+r.Intn(3); j++ {
				paths := allPaths(cur, docIdx)
				if len(paths) == 0 {
					break
				}
				p := append([]string(nil), paths[r.Intn(len(paths))]...)
				switch r.Intn(4) {
				case 0:
					p = append(p, "new"+strconv.Itoa(r.Intn(3)))
				case 1:
					p = append(p, "n1", "n2")
				case 2:
					p = append(p, oddKeys[r.Intn(len(oddKeys))])
				}
				op := Op{Action: []Action{Set, Set, Append, Delete}[r.Intn(4)], Path: p, Value: values[r.Intn(len(values))]}
				if r.Intn(3) == 0 {
					op.Comment = "why"
				}
				if r.Intn(2) == 0 {
					op.After = []string{"name", "image", "kind"}
				}
				got, err := Apply(cur, docIdx, []Op{op})
				if err != nil {
					msg := err.Error()
					for _, k := range []string{"inside a scalar", "not a sequence index", "not a sequence", "alias", "anchor"} {
						if strings.Contains(msg, k) {
							msg = k
							break
						}
					}
					kinds[msg]++
					if strings.Contains(err.Error(), "edited text") || strings.Contains(err.Error(), "internal") {
						internal++
						t.Errorf("%s: %v\nops %+v then %+v\nsrc:\n%s", name, err, applied, op, cur)
					}
					continue
				}
				checkResult(t, cur, got, docIdx)
				checkFileChanges(t, cur, got, docIdx, op)
				okCount++
				checkOracle(t, cur, got, docIdx, op)
				applied = append(applied, op)
				cur = got
			}
			if internal > 10 {
				t.Fatal("too many failures")
			}
		}
	}
	t.Logf("%d ops applied, %d checked against the oracle; refused: %v", okCount, oracleChecked, kinds)
}

// checkFileChanges requires File.Changes, which compares the edited
// document only, to give what comparing the whole files gives.
func checkFileChanges(t *testing.T, src, got []byte, doc int, op Op) {
	t.Helper()
	f, err := NewFile(src)
	if err != nil {
		t.Fatalf("NewFile refuses a file Apply edited: %v", err)
	}
	cs, err := f.Changes(doc, []Op{op})
	if err != nil {
		t.Fatalf("File.Changes fails where Apply did not: %v", err)
	}
	if d := cmp.Diff(Changes(src, got), cs); d != "" {
		t.Errorf("File.Changes differs from Changes of the whole file (-whole +document):\n%s\nop %+v\nsrc:\n%s", d, op, src)
	}
}

// oddKeys need quoting or are otherwise unusual as mapping keys.
var oddKeys = []string{"a b", "x: y", "#k", "true", "-", "", "'q'", "k #c", "é", "[x]", "null", "~", "*a", "&b"}

// allPaths lists the path of every node of document doc.
func allPaths(src []byte, doc int) [][]string {
	ls := splitLines(src)
	docs := documents(ls)
	if doc >= len(docs) {
		return nil
	}
	var d yaml.Node
	if err := yaml.Unmarshal(joinLines(ls[docs[doc].start:docs[doc].end]), &d); err != nil || len(d.Content) == 0 {
		return nil
	}
	var out [][]string
	var walk func(n *yaml.Node, p []string)
	walk = func(n *yaml.Node, p []string) {
		if len(p) > 0 {
			out = append(out, append([]string(nil), p...))
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], append(p, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			for i, it := range n.Content {
				walk(it, append(p, strconv.Itoa(i)))
			}
		}
	}
	walk(d.Content[0], nil)
	return out
}

// reindent doubles every line's leading spaces (2-space to 4-space layout).
func reindent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		n := indentOf(l)
		lines[i] = strings.Repeat(" ", n) + l
	}
	return strings.Join(lines, "\n")
}

// checkOracle compares document doc of got with the oracle's idea of op
// applied to src, when the oracle models the case.
func checkOracle(t *testing.T, src, got []byte, doc int, op Op) {
	t.Helper()
	var vn yaml.Node
	if op.Action != Delete && (yaml.Unmarshal([]byte(op.Value), &vn) != nil || len(vn.Content) == 0 || hasAliasOrOddKey(vn.Content[0])) {
		return
	}
	for _, el := range op.Path {
		if el == "<<" {
			return
		}
	}
	ls := splitLines(src)
	sp := documents(ls)[doc]
	var n yaml.Node
	if yaml.Unmarshal(joinLines(ls[sp.start:sp.end]), &n) != nil || len(n.Content) == 0 || hasAliasOrOddKey(n.Content[0]) {
		return
	}
	var data any
	if err := n.Content[0].Decode(&data); err != nil {
		return
	}
	want, ok := oracle(data, op)
	if !ok {
		return
	}
	oracleChecked++
	// Only the edited document is decoded: another one may hold what the
	// decode into Go values refuses (a duplicate key) and still parse.
	gl := splitLines(got)
	gsp := documents(gl)[doc]
	var gotDoc any
	if docs := decodeDocs(t, joinLines(gl[gsp.start:gsp.end])); len(docs) > 0 {
		gotDoc = docs[0]
	}
	if diff := cmp.Diff(want, gotDoc); diff != "" {
		t.Errorf("result differs from the oracle (-want +got):\n%s\nop %+v\nsrc:\n%s\ngot:\n%s", diff, op, src, got)
	}
}

var oracleChecked int
