package manifest

import (
	"bytes"
	"strings"
	"testing"
)

// TestCRDTextReadAgain holds a dropped CRD text to the bytes it was, read
// again from the file, and to an error, not other bytes, once the file
// changed; a document whose marker its text blanks (one with a comment on
// its line, or after a comment header) is read again with it blanked.
func TestCRDTextReadAgain(t *testing.T) {
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: dbs.example.com\nspec:\n  group: example.com\n"
	src := []byte("# fetched from a release\n---\n" + crd + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n" + crd + "--- # marker with a comment\n" + crd)
	f := Parse("crds.yaml", src, DefaultLimits)
	var crds []*Object
	for _, o := range f.Objects {
		if o.SpecSkipped {
			crds = append(crds, o)
		}
	}
	if len(crds) != 3 {
		t.Fatalf("%d CRDs with their spec skipped, want 3", len(crds))
	}
	var want [][]byte
	for _, o := range crds {
		want = append(want, bytes.Clone(o.CRDText))
	}
	if !bytes.HasPrefix(want[0], []byte("# fetched from a release\n   \n")) || !bytes.HasPrefix(want[2], []byte("    # marker")) {
		t.Fatalf("the texts %q and %q do not have their markers blanked", want[0], want[2])
	}
	file := bytes.Clone(src)
	reads := 0
	f.DropCRDTexts(func(off, n int) ([]byte, error) {
		reads++
		return bytes.Clone(file[off : off+n]), nil
	})
	for i, o := range crds {
		if o.CRDText != nil {
			t.Errorf("CRD %d's text was kept: it is the file's bytes, its marker aside", i)
		}
	}
	for i, o := range crds {
		got, err := o.CRDSource()
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Errorf("CRD %d: CRDSource = %q, %v; want %q", i, got, err, want[i])
		}
	}
	if reads != 3 {
		t.Errorf("%d reads of the file, want 3", reads)
	}
	for {
		at := bytes.Index(file, []byte("dbs.example"))
		if at < 0 {
			break
		}
		copy(file[at:], "xyz")
	}
	for i, o := range crds {
		if _, err := o.CRDSource(); err == nil || !strings.Contains(err.Error(), "changed") {
			t.Errorf("CRD %d: a changed file gave %v, want an error saying it changed", i, err)
		}
	}
}

// TestCRDTextDroppedWhileParsed holds ParsePackedDroppingCRDTexts to
// ParsePacked followed by DropCRDTexts: each CRD's text is read again
// from the file (the second's with its marker blanked again), and nothing
// it keeps is the source's buffer, which the caller reuses.
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
	if len(got) != 2 || got[0].CRDText != nil || got[1].CRDText != nil {
		t.Fatalf("%d CRDs, texts kept %v; want 2, both dropped", len(got), got)
	}
	for i, o := range got {
		text, err := o.CRDSource()
		if w := want.Objects[i+1].CRDText; err != nil || !bytes.Equal(text, w) {
			t.Errorf("CRD %d: CRDSource = %q, %v; want %q", i, text, err, w)
		}
	}
	if reads != 2 {
		t.Errorf("%d reads of the file, want 2", reads)
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
