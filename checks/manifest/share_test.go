package manifest

import (
	"maps"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

const configMapWithData = `apiVersion: v1
kind: ConfigMap
metadata:
  name: dashboards
data:
  plain: one line
  quoted: "two\nlines, \u00e9scaped"
  script: |
    #!/bin/sh
    echo hello
  folded: >-
    folded
    text
  anchored: &a shared
  alias: *a
  empty: ""
`

// TestConfigMapDataSharesTheTree: a decoded ConfigMap's data values are
// the node tree's strings (no second copy), packed or not, and read the
// same as a plain decode of the text.
func TestConfigMapDataSharesTheTree(t *testing.T) {
	var want corev1.ConfigMap
	if err := sigsyaml.UnmarshalStrict([]byte(configMapWithData), &want); err != nil {
		t.Fatal(err)
	}
	parsers := map[string]func(string, []byte, Limits) *File{"Parse": Parse, "ParsePacked": ParsePacked}
	for name, parse := range parsers {
		f := parse("cm.yaml", []byte(configMapWithData), Limits{})
		DecodePendingFiles([]*File{f})
		o := f.Objects[0]
		cm, ok := o.Typed().(*corev1.ConfigMap)
		if !ok {
			t.Fatalf("%s: Typed is %T", name, o.Typed())
		}
		if !maps.Equal(cm.Data, want.Data) {
			t.Errorf("%s: data %q, want %q", name, cm.Data, want.Data)
		}
		// The tree's strings: the packed string, or each node's value.
		inTree := func(s string) bool {
			if o.packed != nil {
				base := uintptr(unsafe.Pointer(unsafe.StringData(o.packed.strs)))
				p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
				return p >= base && p < base+uintptr(len(o.packed.strs))
			}
			_, data := MapEntry(o.root, "data")
			for _, n := range data.Content {
				if unsafe.StringData(n.Value) == unsafe.StringData(s) {
					return true
				}
			}
			return false
		}
		if name == "ParsePacked" && o.packed == nil {
			t.Fatal("ParsePacked left the object unpacked")
		}
		for k, v := range cm.Data {
			if v != "" && !inTree(v) && !strings.Contains(k, "alias") {
				t.Errorf("%s: data.%s is a copy, not the tree's string", name, k)
			}
		}
	}
}

// TestMetadataMapsAreShared: a decoded object's labels and annotations are
// the object's own maps, and a decoded map that differs from them (a
// label the typed decode reads differently) is left as decoded.
func TestMetadataMapsAreShared(t *testing.T) {
	src := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, tier: front}
  annotations: {owner: team-a}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "web:1"}]}
`
	for name, parse := range map[string]func(string, []byte, Limits) *File{"Parse": Parse, "ParsePacked": ParsePacked} {
		f := parse("web.yaml", []byte(src), Limits{})
		DecodePendingFiles([]*File{f})
		o := f.Objects[0]
		d, ok := o.Typed().(*appsv1.Deployment)
		if !ok {
			t.Fatalf("%s: Typed is %T", name, o.Typed())
		}
		same := func(a, b map[string]string) bool {
			return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
		}
		if !same(d.Labels, o.Labels) || !same(d.Annotations, o.Annotations) {
			t.Errorf("%s: the typed labels and annotations are copies", name)
		}
		if want := map[string]string{"app": "web", "tier": "front"}; !maps.Equal(d.Labels, want) {
			t.Errorf("%s: labels %v, want %v", name, d.Labels, want)
		}
	}

	o := &Object{Labels: map[string]string{"a": "1"}}
	d := &appsv1.Deployment{}
	d.Labels = map[string]string{"a": "2"}
	o.shareMetadataMaps(d)
	if d.Labels["a"] != "2" {
		t.Errorf("a differing decoded map was replaced: %v", d.Labels)
	}
}

// TestHeaderStringsShareThePackedStrings: a packed object's kind, name,
// labels and annotations are substrings of its packed tree's strings (not
// strings of their own from the parse), and read the same.
func TestHeaderStringsShareThePackedStrings(t *testing.T) {
	src := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web, tier: front}
  annotations: {owner: team-a}
`
	f := ParsePacked("web.yaml", []byte(src), Limits{})
	o := f.Objects[0]
	if o.packed == nil {
		t.Fatal("not packed")
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(o.packed.strs)))
	inStrs := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return p >= base && p < base+uintptr(len(o.packed.strs))
	}
	for _, s := range []string{o.APIVersion, o.Kind, o.Name, o.Namespace} {
		if !inStrs(s) {
			t.Errorf("%q is a string of its own", s)
		}
	}
	for _, m := range []map[string]string{o.Labels, o.Annotations} {
		for k, v := range m {
			if !inStrs(k) || !inStrs(v) {
				t.Errorf("%s: %s is a string of its own", k, v)
			}
		}
	}
	if o.APIVersion != "apps/v1" || o.Kind != "Deployment" || o.Name != "web" || o.Namespace != "shop" ||
		!maps.Equal(o.Labels, map[string]string{"app": "web", "tier": "front"}) || !maps.Equal(o.Annotations, map[string]string{"owner": "team-a"}) {
		t.Errorf("header %s %s %s/%s %v %v", o.APIVersion, o.Kind, o.Namespace, o.Name, o.Labels, o.Annotations)
	}
}
