package edit

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzApply applies a random op (with a Comment or without, when the line
// comment it replaces stays) to seed documents: the result must be an
// error or valid YAML with the same number of documents, the other
// documents byte-identical, and suggestions that reproduce it, the same
// whether the whole files or the edited document alone (File.Changes) are
// compared. It must never panic.
func FuzzApply(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	paths := []string{"spec.containers.0.securityContext", "spec.securityContext.runAsRoot", "metadata.name",
		"spec.containers.0.image", "spec.containers", "spec", "kind", "spec.containers.1", "x.y.z"}
	values := []string{"false", "nginx:1", "name: b\nimage: c\n", "[a, b]", "{}", "|\n  text\n", `"q"`}
	for i, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for j, p := range paths {
			f.Add(b, uint8(0), uint8((i+j)%3), p, values[(i+j)%len(values)], uint16(i*7+j))
		}
	}
	for _, c := range slices.Concat(applyCases, commentCases) {
		if len(c.ops) > 0 {
			o := c.ops[0]
			a := actionIndex(o.Action)
			if o.Comment == "" {
				a += 3 // an op without a Comment: the old line comment stays
			}
			f.Add([]byte(c.src), uint8(c.doc), a, strings.Join(o.Path, "."), o.Value, uint16(1))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, doc, action uint8, path, value string, pick uint16) {
		op := Op{Action: []Action{Set, Append, Delete}[action%3], Path: split(path), Value: value,
			After: []string{"name", "image"}}
		if action/3%2 == 0 {
			op.Comment = "c"
		}
		// Half the time, aim at a node that exists (plus the fuzzed path).
		if ps := allPaths(src, int(doc%4)); len(ps) > 0 && pick%2 == 0 {
			op.Path = append(ps[int(pick/2)%len(ps)], op.Path...)
		}
		start := time.Now()
		got, err := Apply(src, int(doc%4), []Op{op})
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Fatalf("slow (%v)\nsrc %q\nop %+v", d, src, op)
		}
		if ref, refErr := applyWhole(src, int(doc%4), []Op{op}); (err == nil) != (refErr == nil) || (err == nil && !bytes.Equal(got, ref)) {
			if _, nerr := NewFile(src); nerr == nil || err == nil || refErr != nil { // not just NewFile refusing the file
				t.Fatalf("File.Apply %q, %v; whole-file splice %q, %v\nsrc %q\nop %+v", got, err, ref, refErr, src, op)
			}
		}
		if err != nil {
			return
		}
		m, srcOK := countDocs(src)
		n, ok := countDocs(got)
		if srcOK && !ok {
			t.Fatalf("result does not parse\nsrc %q\nop %+v\ngot %q", src, op, got)
		}
		if srcOK && m != n {
			t.Fatalf("document count %d -> %d\nsrc %q\nop %+v\ngot %q", m, n, src, op, got)
		}
		sl, gl := splitLines(src), splitLines(got)
		sd, gd := documents(sl), documents(gl)
		for i := range sd {
			if i != int(doc%4) && !bytes.Equal(joinLines(sl[sd[i].start:sd[i].end]), joinLines(gl[gd[i].start:gd[i].end])) {
				t.Fatalf("document %d changed\nsrc %q\nop %+v\ngot %q", i, src, op, got)
			}
		}
		if srcOK {
			checkOracle(t, src, got, int(doc%4), op)
		}
		whole := Changes(src, got)
		if back := ApplyChanges(src, whole); !bytes.Equal(back, got) {
			t.Fatalf("suggestions do not reproduce the result\nsrc %q\ngot %q", src, got)
		}
		file, err := NewFile(src)
		if err != nil {
			t.Fatalf("NewFile refuses a file Apply edited: %v", err)
		}
		if own, err := file.Changes(int(doc%4), []Op{op}); err != nil || !reflect.DeepEqual(own, whole) {
			t.Fatalf("File.Changes = %+v, %v; the whole file's changes are %+v\nsrc %q\nop %+v", own, err, whole, src, op)
		}
	})
}

func actionIndex(a Action) uint8 {
	switch a {
	case Append:
		return 1
	case Delete:
		return 2
	}
	return 0
}

// FuzzChanges checks that suggestions always reproduce the new text and
// replace at least one existing line each.
func FuzzChanges(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nx\nc\nd"))
	f.Add([]byte(""), []byte("a\n"))
	f.Add([]byte("a\r\nb\r\n"), []byte("b\r\n"))
	f.Fuzz(func(t *testing.T, old, new []byte) {
		cs := Changes(old, new)
		if got := ApplyChanges(old, cs); !bytes.Equal(got, new) {
			t.Fatalf("ApplyChanges(Changes) = %q, want %q (changes %+v)", got, new, cs)
		}
		for _, c := range cs {
			if len(old) > 0 && c.EndLine < c.StartLine {
				t.Fatalf("change %+v replaces no line", c)
			}
		}
	})
}
