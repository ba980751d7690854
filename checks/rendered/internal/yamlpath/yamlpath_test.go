package yamlpath

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestKeyAtReadsAliases checks that a values key whose value holds an
// alias (`port: *portName`, as alertmanager's chart names its port) is
// found as the source of what it renders (`port: http`), and that a merge
// key, whose entries the rendering holds merged, is not compared.
func TestKeyAtReadsAliases(t *testing.T) {
	values := ParseDoc([]byte(`portName: &portName http
base: &base {path: /}
livenessProbe:
  httpGet:
    path: /
    port: *portName
merged:
  <<: *base
  port: *portName
`))
	for _, tc := range []struct {
		line     int
		rendered string
		want     []string
	}{
		{3, "httpGet: {path: /, port: http}\n", []string{"livenessProbe"}},
		{3, "httpGet: {path: /, port: metrics}\n", nil},
		{7, "{path: /, port: http}\n", nil},
	} {
		got, ok := KeyAt(values, tc.line, ParseDoc([]byte(tc.rendered)))
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("KeyAt line %d, %q: %v %v, want %v", tc.line, tc.rendered, got, ok, tc.want)
		}
	}
}

// TestPlainEndsOnAnAliasOfItsOwnNode checks that an alias of a node that
// holds it is followed a bounded number of times, not for ever.
func TestPlainEndsOnAnAliasOfItsOwnNode(t *testing.T) {
	root := ParseDoc([]byte("a: &x\n  b: *x\n"))
	if root == nil {
		t.Skip("yaml.v3 does not parse an alias inside its own anchor here")
	}
	if v, ok := Plain(root); ok {
		t.Errorf("Plain: %v, want false", v)
	}
	if v, ok := Plain(ParseDoc([]byte("a: &x {b: 1}\nc: *x\n"))); !ok || !reflect.DeepEqual(v, map[string]any{"a": map[string]any{"b": "1"}, "c": map[string]any{"b": "1"}}) {
		t.Errorf("Plain: %v %v, want the alias read as its node", v, ok)
	}
}

// TestPlainBoundsAliasesOfAliases checks that aliases of lists of aliases,
// whose reading multiplies at each level, are read only up to a bound.
func TestPlainBoundsAliasesOfAliases(t *testing.T) {
	doc := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g"} {
		doc += name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = name
	}
	root := ParseDoc([]byte(doc))
	if root == nil {
		t.Fatal("the document does not parse")
	}
	if _, ok := Plain(root); ok {
		t.Error("Plain read 10^7 scalars, want it to stop")
	}
	if _, ok := Plain(root.Content[1]); !ok {
		t.Error("Plain of a's list: false, want its ten scalars")
	}
}

// TestHeldCountsTheSegmentsThere checks Held on Walk's nodes: all of a
// path the document holds, up to the first key it lacks, none of one
// whose first key it lacks.
func TestHeldCountsTheSegmentsThere(t *testing.T) {
	root := ParseDoc([]byte("spec:\n  containers:\n    - name: web\n"))
	for p, want := range map[string]int{"spec.containers.0.name": 4, "spec.containers.0.securityContext.readOnlyRootFilesystem": 3, "spec.volumes": 1, "metadata.labels": 0} {
		if _, nodes := Walk(root, strings.Split(p, ".")); Held(nodes) != want {
			t.Errorf("Held(%s) = %d, want %d", p, Held(nodes), want)
		}
	}
}
