package manifest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// deferredCases are documents whose typed decode ends every way it can: a
// value, a schema problem (type, unknown field, duplicate key), a
// placeholder, a kustomize patch, a SOPS Secret, JSON made from the text
// (an anchor) and a document that does not parse between them.
var deferredCases = strings.Join([]string{
	deployment,
	"apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports:\n    - port: \"80\"\n",
	"apiVersion: v1\nkind: Service\nmetadata: {name: s2}\nspec:\n  clusterIp: None\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: x\n  a: y\n",
	"apiVersion: v1\nkind: Service\nmetadata: {name: s3}\nspec:\n  ports:\n    - port: PORT\n",
	"a: [unclosed\n",
	"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec:\n  resources:\n    requests:\n      storage: ${SIZE}\n",
	"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  k: ENC[AES256_GCM,data:abc]\nsops:\n  version: 3.8.1\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n        - name: x\n          $patch: delete\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: &l {app: p}\n  annotations: *l\nspec:\n  containers: [{name: c, image: i, resources: {limits: {cpu: 1.5}}}]\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec:\n  containers: [{name: c, image: i, resources: {limits: {memory: lots}}}]\n",
}, "---\n")

// TestParseDeferredMatchesParse checks that ParseDeferred then DecodePending
// (with the trees packed in between, as the check command does) ends with
// what Parse gives: the same typed values, flags, pod templates and
// problems, in the same order and places; and that decoding leaves no
// inflated tree behind (a decode error inflates one only to place itself).
func TestParseDeferredMatchesParse(t *testing.T) {
	want := Parse("x.yaml", []byte(deferredCases), Limits{})
	got := ParseDeferred("x.yaml", []byte(deferredCases), Limits{})
	pending := 0
	for _, o := range got.Objects {
		if o.pending != nil {
			pending++
			if o.Typed() != nil {
				t.Errorf("%s %s: decoded at parse time, though deferred", o.Kind, o.Name)
			}
		}
	}
	if pending < 6 {
		t.Fatalf("only %d objects left pending: the deferred path is not taken", pending)
	}
	got.Pack()
	got.DecodePending()
	if len(want.Problems) < 5 {
		t.Fatalf("the cases make only %d problems: %+v", len(want.Problems), want.Problems)
	}
	sameParse(t, got, want)
}

// TestParsePackedMatchesParse is TestParseDeferredMatchesParse for the way
// the check command parses: each document packed as soon as it is parsed.
func TestParsePackedMatchesParse(t *testing.T) {
	want := Parse("x.yaml", []byte(deferredCases), Limits{})
	got := ParsePacked("x.yaml", []byte(deferredCases), Limits{})
	for _, o := range got.Objects {
		if o.root != nil {
			t.Errorf("%s %s: not packed", o.Kind, o.Name)
		}
	}
	got.DecodePending()
	sameParse(t, got, want)
}

// TestLargeFileParsesAsInSequence checks that a file large enough to have
// its documents parsed in parallel (a rendered chart) ends as it does
// parsed one document after the other: objects, trees, block scalar
// indents, typed values and problems in the same order.
func TestLargeFileParsesAsInSequence(t *testing.T) {
	part := deferredCases + "---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: block}\ndata:\n  script: |\n\n      echo indented\n  other: x\n" +
		"--- {apiVersion: v1, kind: Namespace, metadata: {name: on-marker}}\n...\n# a comment between documents\n---\n"
	src := []byte(strings.Repeat(part, parallelDocsMinBytes/len(part)+2))
	parallelDocs := Parse("big.yaml", src, Limits{})
	packed := ParsePacked("big.yaml", src, Limits{})
	packed.DecodePending()

	defer func(min int) { parallelDocsMinBytes = min }(parallelDocsMinBytes)
	parallelDocsMinBytes = len(src) + 1
	want := Parse("big.yaml", src, Limits{})
	if len(want.Objects) < 100 || len(want.Problems) < 50 {
		t.Fatalf("the file makes only %d objects and %d problems", len(want.Objects), len(want.Problems))
	}
	blocks := 0
	for _, o := range want.Objects {
		blocks += len(o.blockIndent)
	}
	if blocks == 0 {
		t.Fatal("no block scalar indent recorded: the test would not see a wrong line cursor")
	}
	sameParse(t, parallelDocs, want)
	sameParse(t, packed, want)
}

// sameParse reports where got, parsed some other way, differs from want
// (from Parse): problems, objects, trees, block scalar indents, typed
// values, flags and pod templates. got must be decoded, and packed trees
// must hold no inflated tree.
func sameParse(t *testing.T, got, want *File) {
	t.Helper()
	if got.Docs != want.Docs {
		t.Errorf("docs: got %d, want %d", got.Docs, want.Docs)
	}
	if len(got.Problems) != len(want.Problems) {
		t.Fatalf("problems: got %d, want %d\ngot  %+v\nwant %+v", len(got.Problems), len(want.Problems), got.Problems, want.Problems)
	}
	for i := range want.Problems {
		w, g := want.Problems[i], got.Problems[i]
		if w.RuleID != g.RuleID || w.Doc != g.Doc || w.Line != g.Line || w.Column != g.Column || w.Message != g.Message || w.Template != g.Template || (w.Object == nil) != (g.Object == nil) {
			t.Errorf("problem %d: got %+v, want %+v", i, g, w)
		}
	}
	if len(got.Objects) != len(want.Objects) {
		t.Fatalf("objects: got %d, want %d", len(got.Objects), len(want.Objects))
	}
	for i, w := range want.Objects {
		g := got.Objects[i]
		if g.File != got {
			t.Errorf("%s %s: File is not the file it is in", w.Kind, w.Name)
		}
		if g.Doc != w.Doc || g.StartLine != w.StartLine || g.EndLine != w.EndLine || g.Kind != w.Kind || g.Name != w.Name {
			t.Errorf("object %d: doc %d lines %d-%d %s %s; want doc %d lines %d-%d %s %s", i, g.Doc, g.StartLine, g.EndLine, g.Kind, g.Name, w.Doc, w.StartLine, w.EndLine, w.Kind, w.Name)
		}
		if !reflect.DeepEqual(g.blockIndent, w.blockIndent) {
			t.Errorf("%s %s: block indents %v, want %v", w.Kind, w.Name, g.blockIndent, w.blockIndent)
		}
		if g.pending != nil {
			t.Errorf("%s %s: still pending after DecodePending", w.Kind, w.Name)
		}
		if g.packed != nil && (g.packed.inflated.kept.Load() != nil || g.packed.inflated.held.Load() != nil) {
			t.Errorf("%s %s: the decode left an inflated tree behind", w.Kind, w.Name)
		}
		g.Hold()
		if err := sameTree(w.Root(), g.Root(), fmt.Sprintf("object %d", i)); err != nil {
			t.Error(err)
		}
		g.Release()
		if !reflect.DeepEqual(g.Typed(), w.Typed()) || g.Templated != w.Templated || g.Patch != w.Patch {
			t.Errorf("%s %s: typed %T templated %v patch %v; want %T %v %v", w.Kind, w.Name, g.Typed(), g.Templated, g.Patch, w.Typed(), w.Templated, w.Patch)
		}
		if wp, gp := w.PodTemplate(), g.PodTemplate(); (wp == nil) != (gp == nil) || (wp != nil && !reflect.DeepEqual(wp.Spec, gp.Spec)) {
			t.Errorf("%s %s: pod template differs", w.Kind, w.Name)
		}
	}
}
