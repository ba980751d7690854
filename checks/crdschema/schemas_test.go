package crdschema

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// crdDocuments parses every YAML file under dir and returns its CRD
// documents whose spec the parser skipped (those readNames reads).
func crdDocuments(t *testing.T, dir string) []*manifest.Object {
	t.Helper()
	var out []*manifest.Object
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, o := range manifest.Parse(p, data, manifest.DefaultLimits).Objects {
			if o.Kind == "CustomResourceDefinition" && o.CRDText != nil {
				out = append(out, o)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameDefinition fails unless the CRD read from its names and cut-out
// blocks is the CRD read whole: names, scope, versions, served, and each
// version's schema. It returns whether readNames read it.
func sameDefinition(t *testing.T, o *manifest.Object) bool {
	t.Helper()
	whole := readWhole(o)
	cut := readNames(o, o.CRDText)
	if cut == nil {
		return false
	}
	where := o.File.Path + ": " + o.Name
	if whole.Err != nil {
		t.Errorf("%s: read whole it fails (%v), read by names it does not", where, whole.Err)
		return true
	}
	if cut.Group != whole.Group || cut.Kind != whole.Kind || cut.Plural != whole.Plural || cut.Namespaced != whole.Namespaced {
		t.Errorf("%s: names %s %s %s %v, read whole %s %s %s %v", where, cut.Group, cut.Kind, cut.Plural, cut.Namespaced, whole.Group, whole.Kind, whole.Plural, whole.Namespaced)
	}
	if !reflect.DeepEqual(cut.Versions(), whole.Versions()) {
		t.Errorf("%s: versions %v, read whole %v", where, cut.Versions(), whole.Versions())
		return true
	}
	for name, wv := range whole.versions {
		cv := cut.versions[name]
		if cv.Served != wv.Served || (cv.schema == nil) != (wv.schema == nil) {
			t.Errorf("%s %s: served %v, schema %v; read whole %v, %v", where, name, cv.Served, cv.schema != nil, wv.Served, wv.schema != nil)
			continue
		}
		if wv.schema == nil {
			continue
		}
		ws, _ := wv.schema()
		cs, err := cv.schema()
		if err != nil || !reflect.DeepEqual(cs, ws) {
			t.Errorf("%s %s: the schema decoded from its block differs from the whole document's (%v)", where, name, err)
		}
	}
	return true
}

// TestNamesReadAsWhole holds readNames to what decoding the whole CRD
// gives, on the fixtures' CRDs.
func TestNamesReadAsWhole(t *testing.T) {
	n := 0
	for _, o := range crdDocuments(t, "../../fixtures") {
		if sameDefinition(t, o) {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no fixture CRD was read by its names: the test checks nothing")
	}
}

// TestNamesReadAsWholeOnCorpus holds readNames to the whole read on every
// CRD of the corpus, and to reading nearly all of them.
func TestNamesReadAsWholeOnCorpus(t *testing.T) {
	const dir = "../../../shared/corpus"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("../shared/corpus not present (it sits beside the repository in development and CI only): %v", err)
	}
	objs := crdDocuments(t, dir)
	read := 0
	for _, o := range objs {
		if sameDefinition(t, o) {
			read++
		} else if o.APIVersion == "apiextensions.k8s.io/v1" {
			t.Logf("read whole: %s %s", o.File.Path, o.Name)
		}
	}
	t.Logf("%d of %d CRDs read by their names", read, len(objs))
	if read < len(objs)*9/10 {
		t.Errorf("only %d of %d CRDs read by their names", read, len(objs))
	}
}

// TestSplitSchemas holds the cut to the generators' layout and to what it
// must leave alone.
func TestSplitSchemas(t *testing.T) {
	text := "spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:  # the schema\n        type: object\n\n        properties:\n          a: {type: string}\n    served: true\n  - name: v2\n    schema:\n      openAPIV3Schema: {type: object}\n"
	header, blocks := splitSchemas([]byte(text))
	if len(blocks) != 1 || string(blocks[0]) != "openAPIV3Schema:  # the schema\n        type: object\n\n        properties:\n          a: {type: string}\n" {
		t.Fatalf("blocks = %q", blocks)
	}
	want := "spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema: {id: " + blockID + "0}\n    served: true\n  - name: v2\n    schema:\n      openAPIV3Schema: {type: object}\n"
	if string(header) != want {
		t.Errorf("header =\n%s\nwant\n%s", header, want)
	}
	var p apiextensionsv1.JSONSchemaProps
	p.ID = blockID + "1"
	if _, ok := placeholder(&p, 1); ok {
		t.Error("a placeholder past the last block was taken")
	}
}

// TestInlineSchemaReadWhole holds a CRD with a schema written inline to
// the whole read: readNames gives up rather than guess.
func TestInlineSchemaReadWhole(t *testing.T) {
	src := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: dbs.example.com\nspec:\n  group: example.com\n  names: {kind: DB, plural: dbs}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    schema:\n      openAPIV3Schema:\n        type: object\n  - name: v2\n    served: true\n    schema: {openAPIV3Schema: {type: object}}\n"
	f := manifest.Parse("crd.yaml", []byte(src), manifest.DefaultLimits)
	if len(f.Objects) != 1 || f.Objects[0].CRDText == nil {
		t.Fatalf("the parser did not keep the CRD's text: %+v", f.Objects)
	}
	if d := readNames(f.Objects[0], f.Objects[0].CRDText); d != nil {
		t.Errorf("readNames read a CRD with an inline schema: %+v", d)
	}
	d := read(f.Objects[0])
	if d.Err != nil || d.Kind != "DB" || len(d.Versions()) != 2 || d.Version("v2").Structural == nil {
		t.Errorf("read whole: %+v", d)
	}
}
