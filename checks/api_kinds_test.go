package checks

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/prodready/prodready/checks/internal/apitable"
)

// TestAPIKindsFileIsCurrent holds api_kinds_gen.go to what its generator
// writes for the k8s.io/api version in go.mod: after a version change,
// go generate ./checks.
func TestAPIKindsFileIsCurrent(t *testing.T) {
	want, err := apitable.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(apitable.Output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what its generator writes: run go generate ./checks", apitable.Output)
	}
}

// TestAPITableAnswersAsTheScheme compares the rules' table with a scheme
// of every built-in group version: the kinds it knows, their lifecycles,
// and a constructor for every kind an object is migrated to, at every
// target version.
func TestAPITableAnswersAsTheScheme(t *testing.T) {
	s := apitable.Scheme()
	for gvk := range s.AllKnownTypes() {
		if !apiRecognizes(gvk) {
			t.Errorf("%v: not in apiKinds", gvk)
		}
		obj, err := s.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		want := apitable.LifecycleOf(obj)
		got, ok := apiLifecycleOf(gvk.GroupVersion().String(), gvk.Kind)
		if _, static := apiStaticLifecycles[apiKindKey(gvk)]; static || !apiBuiltinGroups[gvk.Group] {
			continue
		}
		if ok != (want.Deprecated != 0 || want.Removed != 0) || got != apiLifecycle(want) {
			t.Errorf("%v: lifecycle %+v (%v), the type says %+v", gvk, got, ok, want)
		}
	}
	if len(apiKinds) != len(s.AllKnownTypes()) {
		t.Errorf("apiKinds has %d kinds, the scheme %d", len(apiKinds), len(s.AllKnownTypes()))
	}
	for _, gvk := range []schema.GroupVersionKind{{Group: "apps", Version: "v1", Kind: "Deploymen"}, {Group: "example.com", Version: "v1", Kind: "Widget"}, {Version: "v2", Kind: "Pod"}} {
		if apiRecognizes(gvk) {
			t.Errorf("%v recognized", gvk)
		}
	}

	// Every object with a lifecycle, migrated at every target version.
	var keys []string
	for _, k := range apiKinds {
		keys = append(keys, k.key)
	}
	for k := range apiStaticLifecycles {
		keys = append(keys, k)
	}
	targets := 0
	for _, key := range keys {
		gvk := apiKindGVK(key)
		l, ok := apiLifecycleOf(gvk.GroupVersion().String(), gvk.Kind)
		if !ok {
			continue
		}
		for minor := 10; minor <= 40; minor++ {
			to := apiReplacementAt(gvk.GroupVersion().String(), gvk.Kind, l, minor)
			want, err := s.New(to)
			newTarget := apiMigrationTargets[apiKindKey(to)]
			switch {
			case err != nil && newTarget != nil:
				t.Errorf("%s at 1.%d: %v has a constructor the scheme does not know", key, minor, to)
			case err == nil && newTarget == nil:
				t.Errorf("%s at 1.%d: no constructor for %v", key, minor, to)
			case err == nil && reflect.TypeOf(newTarget()) != reflect.TypeOf(want):
				t.Errorf("%s at 1.%d: %v makes %T, the scheme %T", key, minor, to, newTarget(), want)
			case err == nil:
				targets++
			}
		}
	}
	if targets == 0 {
		t.Fatal("no migration target checked")
	}
}
