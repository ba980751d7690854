package crdschema

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

// fixtureVersion reads the crd-schema fixture's CRD, its text let go as a
// lean run lets it go (read again from the file when compiled), and the
// fixture's first Database as JSON.
func fixtureVersion(t *testing.T) (*Definition, func() map[string]any) {
	t.Helper()
	dir := filepath.Join("..", "..", "fixtures", "rules", "crd-schema")
	path := filepath.Join(dir, "crd.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := manifest.Parse(path, data, manifest.DefaultLimits)
	f.DropCRDTexts(func(off, n int) ([]byte, error) { return data[off : off+n], nil })
	var d *Definition
	for _, o := range f.Objects {
		if o.Kind == "CustomResourceDefinition" {
			d = read(o)
		}
	}
	if d == nil || d.Err != nil || d.versions["v1"] == nil {
		t.Fatalf("the fixture's CRD does not read: %+v", d)
	}
	crs, err := os.ReadFile(filepath.Join(dir, "databases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cr := manifest.Parse("databases.yaml", crs, manifest.DefaultLimits).Objects[0]
	return d, func() map[string]any {
		u, err := kube.Unstructured(cr)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
}

// TestVersionLetGoAfterItsLastValidation holds a counted version to being
// kept until its last counted validation, let go then, and compiled
// again, to the same violations, for a use after it, without being kept.
func TestVersionLetGoAfterItsLastValidation(t *testing.T) {
	d, cr := fixtureVersion(t)
	s := d.versions["v1"]
	s.usesLeft, s.counted = 2, true
	first := d.validating("v1")
	if first == nil || first.Err != nil || first.Structural == nil {
		t.Fatalf("v1 does not compile: %+v", first)
	}
	want := sorted(first.Validate(context.Background(), cr()))
	if len(want) == 0 {
		t.Fatal("the fixture's first Database has no violation")
	}
	if s.compiled != first {
		t.Fatal("the version was let go with a validation left")
	}
	if again := d.validating("v1"); again != first {
		t.Error("the last validation compiled the version again")
	}
	if s.compiled != nil {
		t.Fatal("the version is kept after its last validation")
	}
	late := d.Version("v1") // a policy's defaults, after the last validation
	if late == nil || late == first || late.Err != nil {
		t.Fatalf("a use after the last validation got %+v, want the version compiled again", late)
	}
	if got := sorted(late.Validate(context.Background(), cr())); !reflect.DeepEqual(got, want) {
		t.Errorf("compiled again it says %v, first %v", got, want)
	}
	if s.compiled != nil {
		t.Error("a use after the last validation keeps what it compiled")
	}
}

// sorted sorts violations by field and message: the OpenAPI validator's
// order is a map's.
func sorted(vs []Violation) []Violation {
	slices.SortFunc(vs, func(a, b Violation) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Message, b.Message))
	})
	return vs
}

// TestVersionNotCountedIsKept holds a version no validation was counted
// for (its CRD read outside a run, or a run without custom resources) to
// being compiled once and kept.
func TestVersionNotCountedIsKept(t *testing.T) {
	d, _ := fixtureVersion(t)
	first := d.Version("v1")
	if first == nil || first.Structural == nil {
		t.Fatalf("v1 does not compile: %+v", first)
	}
	if d.validating("v1") != first || d.Version("v1") != first {
		t.Error("a version not counted was compiled again")
	}
}
