package apicluster

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/prodready/prodready/checks/kube"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/prodready/prodready/checks/internal/apitable"
)

// TestAPIKindsFileIsCurrent holds kinds_gen.go to what its generator
// writes for the k8s.io/api version in go.mod: after a version change,
// go generate ./checks/rules/apicluster.
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
		t.Fatalf("%s is not what its generator writes: run go generate ./checks/rules/apicluster", apitable.Output)
	}
}

// TestAPITableAnswersAsTheScheme compares the rules' table with a scheme
// of every built-in group version: the kinds it knows, their lifecycles,
// and a constructor for every kind an object is migrated to, at every
// target version.
func TestAPITableAnswersAsTheScheme(t *testing.T) {
	s := apitable.Scheme()
	for gvk := range s.AllKnownTypes() {
		if !recognizes(gvk) {
			t.Errorf("%v: not in apiKinds", gvk)
		}
		obj, err := s.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		want := apitable.LifecycleOf(obj)
		got, ok := lifecycleOf(gvk.GroupVersion().String(), gvk.Kind)
		if _, static := staticLifecycles[kindKey(gvk)]; static || !kube.BuiltinGroups[gvk.Group] {
			continue
		}
		if ok != (want.Deprecated != 0 || want.Removed != 0) || got != lifecycle(want) {
			t.Errorf("%v: lifecycle %+v (%v), the type says %+v", gvk, got, ok, want)
		}
	}
	if len(kinds) != len(s.AllKnownTypes()) {
		t.Errorf("apiKinds has %d kinds, the scheme %d", len(kinds), len(s.AllKnownTypes()))
	}
	for _, gvk := range []schema.GroupVersionKind{{Group: "apps", Version: "v1", Kind: "Deploymen"}, {Group: "example.com", Version: "v1", Kind: "Widget"}, {Version: "v2", Kind: "Pod"}} {
		if recognizes(gvk) {
			t.Errorf("%v recognized", gvk)
		}
	}

	// Every object with a lifecycle, migrated at every target version.
	var keys []string
	for _, k := range kinds {
		keys = append(keys, k.key)
	}
	for k := range staticLifecycles {
		keys = append(keys, k)
	}
	targets := 0
	for _, key := range keys {
		gvk := kindGVK(key)
		l, ok := lifecycleOf(gvk.GroupVersion().String(), gvk.Kind)
		if !ok {
			continue
		}
		for minor := 10; minor <= 40; minor++ {
			to := replacementAt(gvk.GroupVersion().String(), gvk.Kind, l, minor)
			want, err := s.New(to)
			newTarget := migrationTargets[kindKey(to)]
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
