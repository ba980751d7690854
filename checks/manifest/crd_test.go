package manifest

import (
	"bytes"
	"strings"
	"testing"
)

// TestCRDTextReadAgain holds a dropped CRD text to the bytes it was, read
// again from the file, and to an error, not other bytes, once the file
// changed; a document whose text is not the file's bytes (its marker line
// blanked) keeps its text.
func TestCRDTextReadAgain(t *testing.T) {
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: dbs.example.com\nspec:\n  group: example.com\n"
	src := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n" + crd + "--- # marker with a comment\n" + crd)
	f := Parse("crds.yaml", src, DefaultLimits)
	var crds []*Object
	for _, o := range f.Objects {
		if o.SpecSkipped {
			crds = append(crds, o)
		}
	}
	if len(crds) != 2 {
		t.Fatalf("%d CRDs with their spec skipped, want 2", len(crds))
	}
	want := [][]byte{bytes.Clone(crds[0].CRDText), bytes.Clone(crds[1].CRDText)}
	file := bytes.Clone(src)
	reads := 0
	f.DropCRDTexts(func(off, n int) ([]byte, error) {
		reads++
		return bytes.Clone(file[off : off+n]), nil
	})
	if crds[0].CRDText != nil {
		t.Fatal("the first CRD's text was kept: it is the file's bytes as they are")
	}
	for i, o := range crds {
		got, err := o.CRDSource()
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Errorf("CRD %d: CRDSource = %q, %v; want %q", i, got, err, want[i])
		}
	}
	if reads != 1 {
		t.Errorf("%d reads of the file, want 1 (the second CRD's text, its marker blanked, is kept)", reads)
	}
	copy(file[bytes.Index(file, []byte("dbs.example")):], "xyz")
	if _, err := crds[0].CRDSource(); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("a changed file gave %v, want an error saying it changed", err)
	}
}

// TestCRDTextDroppedWhileParsed holds ParsePackedDroppingCRDTexts to
// ParsePacked followed by DropCRDTexts: the CRD whose text is the file's
// bytes is read again from the file, the other keeps a copy of its own,
// and nothing it keeps is the source's buffer, which the caller reuses.
func TestCRDTextDroppedWhileParsed(t *testing.T) {
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: dbs.example.com\nspec:\n  group: example.com\n"
	file := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n" + crd + "--- # marker with a comment\n" + crd)
	want := Parse("crds.yaml", bytes.Clone(file), DefaultLimits)
	buf := bytes.Clone(file)
	reads := 0
	f := ParsePackedDroppingCRDTexts("crds.yaml", buf, DefaultLimits, func(off, n int) ([]byte, error) {
		reads++
		return bytes.Clone(file[off : off+n]), nil
	})
	for i := range buf {
		buf[i] = 'x' // the next file read into the same buffer
	}
	var got []*Object
	for _, o := range f.Objects {
		if o.SpecSkipped {
			got = append(got, o)
		}
	}
	if len(got) != 2 || got[0].CRDText != nil || got[1].CRDText == nil {
		t.Fatalf("%d CRDs, texts kept %v; want 2, the first dropped and the second (its marker blanked) kept", len(got), got)
	}
	for i, o := range got {
		text, err := o.CRDSource()
		if w := want.Objects[i+1].CRDText; err != nil || !bytes.Equal(text, w) {
			t.Errorf("CRD %d: CRDSource = %q, %v; want %q", i, text, err, w)
		}
	}
	if reads != 1 {
		t.Errorf("%d reads of the file, want 1", reads)
	}
	buf = bytes.Clone(file)
	kept := ParsePacked("crds.yaml", buf, DefaultLimits)
	for i := range buf {
		buf[i] = 'x'
	}
	for i, o := range kept.Objects[1:] {
		if w := want.Objects[i+1].CRDText; !bytes.Equal(o.CRDText, w) {
			t.Errorf("ParsePacked, CRD %d: CRDText = %q after the source changed; want a copy, %q", i, o.CRDText, w)
		}
	}
}
