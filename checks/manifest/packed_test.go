package manifest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"go.yaml.in/yaml/v3"
)

// sameTree reports the first difference between two node trees: every field
// yaml.v3 sets, and for an alias the position of the node it names.
func sameTree(a, b *yaml.Node, at string) error {
	if (a == nil) != (b == nil) {
		return fmt.Errorf("%s: one tree is nil", at)
	}
	if a == nil {
		return nil
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Errorf("%s: %+v\n!= %+v", at, *a, *b)
	}
	if (a.Alias == nil) != (b.Alias == nil) {
		return fmt.Errorf("%s: alias set on one side only", at)
	}
	if a.Alias != nil && (a.Alias.Line != b.Alias.Line || a.Alias.Column != b.Alias.Column || a.Alias.Anchor != b.Alias.Anchor) {
		return fmt.Errorf("%s: the aliases name different nodes", at)
	}
	for i := range a.Content {
		if err := sameTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", at, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkPackRoundTrip parses src twice, packs one copy and compares each
// object's inflated tree with the unpacked one.
func checkPackRoundTrip(t *testing.T, name string, src []byte) int {
	t.Helper()
	plain := Parse(name, src, Limits{})
	packed := Parse(name, src, Limits{})
	packed.Pack()
	if len(plain.Objects) != len(packed.Objects) {
		t.Fatalf("%s: %d objects, then %d", name, len(plain.Objects), len(packed.Objects))
	}
	for i, o := range packed.Objects {
		if o.root != nil || o.packed == nil {
			t.Fatalf("%s: object %d is not packed", name, i)
		}
		if err := sameTree(plain.Objects[i].Root(), o.Root(), fmt.Sprintf("%s doc %d", name, o.Doc)); err != nil {
			t.Error(err)
		}
	}
	return len(packed.Objects)
}

func TestPackRoundTrip(t *testing.T) {
	src := []byte(`# header comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm # line comment
  labels: {app: web, "quoted": 'single'}
data:
  base: &base
    a: 1
    b: [x, "y", 2.5, null, true]
  copy: *base
  merged:
    <<: *base
    c: !custom tagged
  script: |
    echo one
      echo two
  folded: >-
    folded
    text
  # foot comment
---
- a list document
- 2
---
just a scalar
`)
	if n := checkPackRoundTrip(t, "mixed.yaml", src); n != 3 {
		t.Fatalf("want 3 objects, got %d", n)
	}
	checkPackedPositions(t, "mixed.yaml", src)
	f := Parse("mixed.yaml", src, Limits{})
	f.Pack()
	o := f.Objects[0]
	if v, _ := o.Scalar("data", "merged", "c"); v != "tagged" {
		t.Errorf("scalar through a packed tree: %q", v)
	}
	o.Hold()
	if n := o.Node("data", "copy"); n == nil || n.Kind != yaml.AliasNode || n.Alias != o.Node("data", "base") {
		t.Error("the alias must name the anchored node of the same inflated tree")
	}
	o.Release()
	if line, _, exact := o.Pos("data", "script"); !exact || line != 15 {
		t.Errorf("Pos(data.script) = %d, %v; want line 15", line, exact)
	}
	if ind, ok := o.BlockIndent(o.Node("data", "script")); !ok || ind != 4 {
		t.Errorf("BlockIndent of a packed block scalar = %d, %v; want 4, true", ind, ok)
	}
}

// TestPackRoundTripFixtures packs every fixture (and the shared corpus when
// it is present) and compares the inflated trees with the parsed ones, and
// positions read from the packed arrays with those of the inflated trees.
func TestPackRoundTripFixtures(t *testing.T) {
	dirs := []string{filepath.Join("..", "..", "fixtures")}
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err == nil && !testing.Short() {
		dirs = append(dirs, corpus)
	} else {
		t.Logf("only the fixtures: ../shared/corpus not present or -short")
	}
	objects := 0
	for _, dir := range dirs {
		walkYAML(t, dir, func(p string, src []byte) {
			objects += checkPackRoundTrip(t, p, src)
			checkPackedPositions(t, p, src)
		})
	}
	if objects < 100 {
		t.Fatalf("only %d objects compared", objects)
	}
	t.Logf("%d objects round-tripped", objects)
}

// TestHoldConcurrentReads reads a packed object from many goroutines while
// it is held and released (go test -race checks the synchronisation).
func TestHoldConcurrentReads(t *testing.T) {
	f := Parse("d.yaml", []byte("kind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n"), Limits{})
	f.Pack()
	o := f.Objects[0]
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if g%2 == 0 {
					o.Hold()
					if v, _ := o.Scalar("spec", "replicas"); v != "3" {
						t.Errorf("held read: %q", v)
					}
					o.Release()
				} else if v, _ := o.Scalar("spec", "replicas"); v != "3" {
					t.Errorf("foreign read: %q", v)
				}
			}
		}()
	}
	wg.Wait()
	o.Hold()
	if o.Root() != o.Root() {
		t.Error("while held, every read must return the same tree")
	}
	o.Release()
}

// TestHoldIsCountedAcrossRuns checks that a packed object held by two runs
// at once (a file the review bot's cache shares between reviews) keeps its
// tree until both release it: one run's Release must not take the tree from
// under the other's rules.
func TestHoldIsCountedAcrossRuns(t *testing.T) {
	f := Parse("d.yaml", []byte("kind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n"), Limits{})
	f.Pack()
	o := f.Objects[0]
	o.Release() // a Release without a Hold is ignored
	o.Hold()    // run 1
	o.Hold()    // run 2
	first := o.Root()
	o.Release() // run 1 is done
	if o.Root() != first {
		t.Fatal("run 2 still holds the object: its rules must read the same tree as before")
	}
	o.Release() // run 2 is done
	if o.packed.inflated.held.Load() != nil {
		t.Fatal("the last Release must drop the held tree")
	}
	if o.Root() == first {
		t.Fatal("a read after the last Release must not return the dropped tree")
	}
}

// walkYAML calls fn with each .yaml and .yml file under dir.
func walkYAML(t *testing.T, dir string, fn func(path string, src []byte)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fn(p, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// packedAlone parses src, which must hold one object, and packs it.
func packedAlone(t *testing.T, name, src string, lim Limits) *Object {
	t.Helper()
	f := Parse(name, []byte(src), lim)
	if len(f.Objects) != 1 {
		t.Fatalf("%s: problems: %+v", name, f.Problems)
	}
	f.Pack()
	return f.Objects[0]
}

// TestPackTooManyTags leaves a tree with more distinct tags than a packed
// tree indexes unpacked, and still readable.
func TestPackTooManyTags(t *testing.T) {
	var b strings.Builder
	b.WriteString("kind: ConfigMap\ndata:\n")
	for i := 0; i <= maxPackedTags; i++ {
		fmt.Fprintf(&b, "  k%d: !t%d v\n", i, i)
	}
	o := packedAlone(t, "tags.yaml", b.String(), Limits{MaxExpandedNodes: 1 << 22})
	if o.packed != nil || o.root == nil {
		t.Fatal("the object should stay unpacked")
	}
	last := fmt.Sprintf("k%d", maxPackedTags)
	if v, _ := o.Scalar("data", last); v != "v" {
		t.Errorf("data.%s = %q", last, v)
	}
}

// TestPackRefusesValueAndChildren leaves unpacked a tree whose mapping
// has a value, which one packed field cannot hold beside its children
// (yaml.v3 never builds one; a hand-built tree can).
func TestPackRefusesValueAndChildren(t *testing.T) {
	f := Parse("odd.yaml", []byte("kind: ConfigMap\ndata:\n  a: b\n"), Limits{})
	if len(f.Objects) != 1 {
		t.Fatalf("problems: %+v", f.Problems)
	}
	o := f.Objects[0]
	o.root.Content[3].Value = "stray"
	f.Pack()
	if o.packed != nil || o.root == nil {
		t.Fatal("the object should stay unpacked")
	}
	if n := o.Node("data"); n == nil || n.Value != "stray" {
		t.Errorf("data = %+v, want the mapping with its value kept", n)
	}
}

// TestPackedNodeSize keeps a packed node at 16 bytes: the node arrays are
// most of what a large run holds until its rules have run.
func TestPackedNodeSize(t *testing.T) {
	if got := unsafe.Sizeof(packedNode{}); got != 16 {
		t.Errorf("packedNode is %d bytes, want 16", got)
	}
}

// checkPackedPositions compares, for every object of src, the positions
// read from the packed arrays (Pos, BlockEnd, KindPos, Scalar, Has,
// PathCrossesAlias, BlockCopy before any inflation)
// with those read from the inflated tree, at every path of the tree and at
// paths that stop short or do not exist.
func checkPackedPositions(t *testing.T, name string, src []byte) {
	t.Helper()
	f := Parse(name, src, Limits{})
	f.Pack()
	for _, o := range f.Objects {
		view := o.packedView()
		if view == nil {
			t.Fatalf("%s doc %d: no packed view before any read", name, o.Doc)
		}
		tree := view.inflate()
		plain := &Object{root: tree, StartLine: o.StartLine}
		var paths [][]string
		var collect func(n *yaml.Node, p []string)
		collect = func(n *yaml.Node, p []string) {
			paths = append(paths, append([]string(nil), p...), append(append([]string(nil), p...), "nope"), append(append([]string(nil), p...), "0"), append(append([]string(nil), p...), "99"))
			if len(paths) > 5000 {
				return
			}
			switch n.Kind {
			case yaml.MappingNode:
				for i := 0; i+1 < len(n.Content); i += 2 {
					collect(n.Content[i+1], append(p, n.Content[i].Value))
				}
			case yaml.SequenceNode:
				for i, c := range n.Content {
					collect(c, append(p, strconv.Itoa(i)))
				}
			case yaml.AliasNode:
				if n.Alias != nil && len(p) < 12 {
					collect(n.Alias, p)
				}
			}
		}
		collect(tree, nil)
		if l1, c1 := o.KindPos(); true {
			if l2, c2 := plain.KindPos(); l1 != l2 || c1 != c2 {
				t.Errorf("%s doc %d: KindPos %d:%d from the packed tree, %d:%d from the inflated one", name, o.Doc, l1, c1, l2, c2)
			}
		}
		for _, p := range paths {
			l1, c1, e1 := o.Pos(p...)
			l2, c2, e2 := plain.Pos(p...)
			if l1 != l2 || c1 != c2 || e1 != e2 {
				t.Errorf("%s doc %d: Pos(%v) = %d:%d %v from the packed tree, %d:%d %v from the inflated one", name, o.Doc, p, l1, c1, e1, l2, c2, e2)
			}
			if b1, b2 := o.BlockEnd(p...), plain.BlockEnd(p...); b1 != b2 {
				t.Errorf("%s doc %d: BlockEnd(%v) = %d from the packed tree, %d from the inflated one", name, o.Doc, p, b1, b2)
			}
			if err := sameTree(o.BlockCopy(p...), plain.BlockCopy(p...), fmt.Sprintf("%s doc %d: BlockCopy(%v)", name, o.Doc, p)); err != nil {
				t.Error(err)
			}
			if s1, ok1 := o.Scalar(p...); true {
				if s2, ok2 := plain.Scalar(p...); s1 != s2 || ok1 != ok2 {
					t.Errorf("%s doc %d: Scalar(%v) = %q %v from the packed tree, %q %v from the inflated one", name, o.Doc, p, s1, ok1, s2, ok2)
				}
			}
			if h1, h2 := o.Has(p...), plain.Has(p...); h1 != h2 {
				t.Errorf("%s doc %d: Has(%v) = %v from the packed tree, %v from the inflated one", name, o.Doc, p, h1, h2)
			}
			if a1, a2 := o.PathCrossesAlias(p...), plain.PathCrossesAlias(p...); a1 != a2 {
				t.Errorf("%s doc %d: PathCrossesAlias(%v) = %v from the packed tree, %v from the inflated one", name, o.Doc, p, a1, a2)
			}
		}
		if o.packedView() == nil {
			t.Errorf("%s doc %d: reading positions inflated the tree", name, o.Doc)
		}
	}
}

// TestPackedNodeBits packs every kind, style and tag index a packed node
// holds and reads them back, and refuses what it does not hold.
func TestPackedNodeBits(t *testing.T) {
	for _, kind := range []yaml.Kind{yaml.DocumentNode, yaml.SequenceNode, yaml.MappingNode, yaml.ScalarNode, yaml.AliasNode} {
		for style := yaml.Style(0); style < 1<<packedStyleBits; style++ {
			for tag := 0; tag < maxPackedTags; tag++ {
				for _, extra := range []bool{false, true} {
					b, ok := packNodeBits(kind, style, tag, extra)
					pn := packedNode{bits: b}
					if !ok || pn.kind() != kind || pn.style() != style || pn.tag() != tag || pn.hasExtra() != extra {
						t.Fatalf("packNodeBits(%v, %v, %d, %v) = %v: read back %v, %v, %d, %v", kind, style, tag, extra, ok, pn.kind(), pn.style(), pn.tag(), pn.hasExtra())
					}
				}
			}
		}
	}
	for _, c := range []struct {
		kind  yaml.Kind
		style yaml.Style
		tag   int
	}{{0, 0, 0}, {3, 0, 0}, {32, 0, 0}, {yaml.ScalarNode, 1 << packedStyleBits, 0}, {yaml.ScalarNode, 0, maxPackedTags}} {
		if _, ok := packNodeBits(c.kind, c.style, c.tag, false); ok {
			t.Errorf("packNodeBits(%v, %v, %d) fits", c.kind, c.style, c.tag)
		}
	}
}

// TestPackWideColumn leaves a tree with a node past the widest column a
// packed node holds unpacked, with its positions intact.
func TestPackWideColumn(t *testing.T) {
	long := strings.Repeat("x", maxPackedColumn)
	src := `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "wide"}, "data": {"a": "` + long + `", "b": "c"}}` + "\n"
	o := packedAlone(t, "wide.json", src, Limits{})
	if o.packed != nil || o.root == nil {
		t.Fatal("the object should stay unpacked")
	}
	want := strings.Index(src, `"b"`) + 1
	if line, col, exact := o.Pos("data", "b"); !exact || line != 1 || col != want {
		t.Errorf("data.b at %d:%d, want 1:%d", line, col, want)
	}
}

// TestPackedTagsCommonAndOwn: plain YAML's tags need no table in a packed
// tree; a tree's own tags are kept and come back on inflate.
func TestPackedTagsCommonAndOwn(t *testing.T) {
	for _, c := range []struct {
		src  string
		own  []string
		tags []string // of the root's children in order
	}{
		{"a: b\nc: 1\nd: [true, ~, 1.5]\n", nil, []string{"!!str", "!!str", "!!str", "!!int", "!!str", "!!seq"}},
		{"a: !ref b\nc: !!binary aGk=\n", []string{"!ref"}, []string{"!!str", "!ref", "!!str", "!!binary"}},
	} {
		f := Parse("tags.yaml", []byte(c.src), Limits{})
		want := f.Objects[0].Root()
		f.Pack()
		o := f.Objects[0]
		if o.packed == nil {
			t.Fatalf("%q: not packed", c.src)
		}
		if !slices.Equal(o.packed.tags, c.own) {
			t.Errorf("%q: own tags %q, want %q", c.src, o.packed.tags, c.own)
		}
		got := o.Root()
		if err := sameTree(want, got, c.src); err != nil {
			t.Error(err)
		}
		var tags []string
		for _, n := range got.Content {
			tags = append(tags, n.Tag)
		}
		if !slices.Equal(tags, c.tags) {
			t.Errorf("%q: tags %q, want %q", c.src, tags, c.tags)
		}
	}
}
