package manifest

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestRootKindLeavesPackedTreesPacked asks each document's root kind of a
// packed file and of the same file unpacked: the answers are Root's, and
// no packed tree is inflated for them.
func TestRootKindLeavesPackedTreesPacked(t *testing.T) {
	src := []byte("replicaCount: 1\nimage:\n  tag: x\n---\n- a\n- b\n---\nplain\n")
	want := []yaml.Kind{yaml.MappingNode, yaml.SequenceNode, yaml.ScalarNode}
	packed := ParsePacked("values.yaml", src, Limits{})
	plain := Parse("values.yaml", src, Limits{})
	if len(packed.Objects) != len(want) || len(plain.Objects) != len(want) {
		t.Fatalf("%d packed and %d plain objects, want %d", len(packed.Objects), len(plain.Objects), len(want))
	}
	for i, o := range packed.Objects {
		if !o.Packed() {
			t.Fatalf("document %d is not packed", i)
		}
		if got := o.RootKind(); got != want[i] {
			t.Errorf("packed document %d: RootKind %v, want %v", i, got, want[i])
		}
		if o.KeepsInflatedTree() {
			t.Errorf("packed document %d: RootKind inflated its tree", i)
		}
		if got := plain.Objects[i].RootKind(); got != want[i] || got != plain.Objects[i].Root().Kind {
			t.Errorf("plain document %d: RootKind %v, want %v", i, got, want[i])
		}
		if got := o.Root().Kind; got != want[i] {
			t.Errorf("packed document %d: Root().Kind %v, want %v", i, got, want[i])
		}
		// Once inflated, the kept tree answers.
		if got := o.RootKind(); got != want[i] {
			t.Errorf("packed document %d after Root: RootKind %v, want %v", i, got, want[i])
		}
	}
	if got := (&Object{}).RootKind(); got != 0 {
		t.Errorf("an object with no tree: RootKind %v, want 0", got)
	}
}
