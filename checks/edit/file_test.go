package edit

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// applyWhole is File.Apply as it was before files were cut into
// documents: every edit splices the document's new lines into all of the
// file's lines and finds every document again. It is the reference the
// document-at-a-time File is held to.
func applyWhole(src []byte, doc int, ops []Op) ([]byte, error) {
	ls := splitLines(src)
	docs := documents(ls)
	if doc < 0 || doc >= len(docs) {
		return nil, fmt.Errorf("document %d out of range", doc)
	}
	sp := docs[doc]
	ed := &editor{lines: slices.Clone(ls[sp.start:sp.end]), eol: fileEOL(ls)}
	for _, op := range ops {
		if err := ed.apply(op); err != nil {
			return nil, err
		}
	}
	out := spliceLines(ls, sp, splitLines(joinLines(ed.lines)))
	if n := len(documents(out)); n != len(docs) {
		return nil, fmt.Errorf("the edit changed the number of documents from %d to %d", len(docs), n)
	}
	return joinLines(out), nil
}

// boundaryFiles have documents that meet every way documents tells apart:
// "---" alone and with content, "...", lines between documents that belong
// to none, comments before a document, a directive, CRLF, and no final
// line break.
var boundaryFiles = []string{
	"a: 1\n---\nb: 2\n---\nc: 3\n",
	"# head\n\na: 1\n...\n...\n# between\nb: 2\n...\n# trailing comment\n",
	"--- {a: 1}\n--- {b: 2}\n---\nc: [3]\n",
	"%YAML 1.2\n---\na: 1\n...\n---\nb: 2",
	"a: 1\r\n---\r\nb: |\r\n  text\r\n---\r\nc: 3\r\n",
	"...\na: 1\n---\n# only a comment\nb: 2\n---\nc: 3\n...\n",
	"a:\n  - x\n---\nb: 1\n# foot\n",
}

// boundaryOps edit a document every way that moves its last line or its
// first: values set and appended at the end, a block scalar, keys deleted.
var boundaryOps = [][]Op{
	{{Action: Set, Path: []string{"z"}, Value: "end"}},
	{{Action: Set, Path: []string{"z"}, Value: "|\n  block\n  text\n"}},
	{{Action: Set, Path: []string{"a"}, Value: "{x: 1}"}},
	{{Action: Delete, Path: []string{"b"}}, {Action: Set, Path: []string{"n"}, Value: "new"}},
	{{Action: Set, Path: []string{"c"}, Value: "[1, 2]"}},
	{{Action: Append, Path: []string{"a"}, Value: "y"}},
}

// TestFileApplyMatchesWholeFile applies every op list to every document of
// each file, one document after the other as fix does, through File and
// through applyWhole: the texts and the errors must agree at every step,
// and File.Changes must be the whole-file diff.
func TestFileApplyMatchesWholeFile(t *testing.T) {
	fast := 0
	for _, src := range boundaryFiles {
		for _, ops := range boundaryOps {
			f, err := NewFile([]byte(src))
			if err != nil {
				t.Fatalf("%q: %v", src, err)
			}
			want := []byte(src)
			for doc := range f.docs {
				mid, _, editErr := f.edit(doc, ops)
				if editErr == nil && f.fits(doc, mid) {
					fast++
				}
				changes, cerr := f.Changes(doc, ops)
				g, err := f.Apply(doc, ops)
				next, werr := applyWhole(want, doc, ops)
				if (err == nil) != (werr == nil) || (cerr == nil) != (err == nil) {
					t.Fatalf("%q doc %d %+v: File.Apply error %v, Changes error %v, whole-file error %v", src, doc, ops, err, cerr, werr)
				}
				if err != nil {
					continue
				}
				if !bytes.Equal(g.Bytes(), next) {
					t.Fatalf("%q doc %d %+v:\nFile       %q\nwhole file %q", src, doc, ops, g.Bytes(), next)
				}
				if whole := Changes(want, next); !reflect.DeepEqual(changes, whole) {
					t.Fatalf("%q doc %d %+v: File.Changes %+v, whole-file diff %+v", src, doc, ops, changes, whole)
				}
				f, want = g, next
			}
		}
	}
	if fast < 50 {
		t.Errorf("only %d edits kept their document in place: the test hardly reaches the fast path", fast)
	}
}

// TestFileApplyReadsAgainWhenALineRunsOn checks the edit whose document's
// last line loses its line break: the next document's first line joins it,
// as the whole text would split.
func TestFileApplyReadsAgainWhenALineRunsOn(t *testing.T) {
	f, err := NewFile([]byte("a: 1\n---\nb: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	mid := splitLines([]byte("a: 1\n--")) // no line break after the last line
	if f.fits(0, mid) {
		t.Fatal("a last line without a line break fits in place, though the next line runs on into it")
	}
	if !f.fits(1, splitLines([]byte("---\nb: 3"))) {
		t.Error("the last document's last line needs no line break, yet it does not fit")
	}
	if !strings.HasPrefix(string(joinLines(f.windowParts(1, f.docs[1])...)), "a: 1\n---\nb: 2\n") {
		t.Errorf("window of the last document: %q", joinLines(f.windowParts(1, f.docs[1])...))
	}
}

// TestFitsSeesBoundariesMove checks the boundary test on new document
// texts no op makes today: one that holds two documents, one that is
// only a comment after a "..." (so no document), and one that ends with
// "..." where the next document's "---" ended it before (the same
// boundaries, so it fits).
func TestFitsSeesBoundariesMove(t *testing.T) {
	for _, c := range []struct {
		src  string
		doc  int
		mid  string
		fits bool
	}{
		{"a: 1\n---\nb: 2\n---\nc: 3\n", 1, "---\nb: 2\n---\nx: 1\n", false},
		{"a: 1\n...\n# c\nb: 2\n...\nc: 3\n", 1, "# c\n...\n", false},
		{"a: 1\n---\nb: 2\n---\nc: 3\n", 1, "---\nb: 2\n...\n", true},
		{"a: 1\n---\nb: 2\n---\nc: 3\n", 1, "---\nb: 3\nd: 4\n", true},
		{"a: 1\n---\nb: 2\n", 0, "a: 1\nb: |\n  x\n", true},
	} {
		f, err := NewFile([]byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.fits(c.doc, splitLines([]byte(c.mid))); got != c.fits {
			t.Errorf("%q, document %d as %q: fits %v, want %v", c.src, c.doc, c.mid, got, c.fits)
		}
	}
}

// applyChecked is Apply as NewFile and File.Apply make it: the file's
// documents counted by a parse of their own before the edit.
func applyChecked(src []byte, doc int, ops []Op) ([]byte, error) {
	f, err := NewFile(src)
	if err != nil {
		return nil, err
	}
	g, err := f.Apply(doc, ops)
	if err != nil {
		return nil, err
	}
	return g.Bytes(), nil
}

// TestApplyCountsAsNewFile holds Apply, which counts a lone document's
// file by the edit's own parse, to NewFile and File.Apply: the same text,
// or the same error, for files that parse, files yaml.v3 sees more or
// fewer documents in than the text (a lone "\r", a UTF-16 mark), files that
// do not parse, and ops that fail before any parse.
func TestApplyCountsAsNewFile(t *testing.T) {
	files := append(slices.Clone(boundaryFiles),
		"a: 1\n", "a: 1", "", "\n", "# only a comment\n", "a: 1\n...\n", "a: 1\n...\n# after\n",
		"# head\na: 1\n", "a: [1\n", "a: 1\n\tb: 2\n", "a: 1\rb: 2\n", "--- a\n", "---\n", "a: *x\n",
		"a: 1\n---\n", "%YAML 1.2\n---\na: 1\n", "a: |\n  x\n# c\n", "- 1\n- 2\n", "a: 1\r\nb: 2\r\n",
		"\r", "a: 1\r", "\xff\xfe", "\xff\xfea\x00:\x00 \x001\x00\n\x00")
	ops := append(slices.Clone(boundaryOps),
		nil,
		[]Op{{Action: Set, Path: []string{"a"}, Value: "1"}},
		[]Op{{Action: Set, Path: []string{"a"}, Value: ""}},
		[]Op{{Action: "bad", Path: []string{"a"}}},
		[]Op{{Action: Delete, Path: []string{"a", "b"}}},
		[]Op{{Action: Set, Path: []string{"0"}, Value: "x"}, {Action: Append, Path: nil, Value: "3"}},
	)
	for _, src := range files {
		for _, o := range ops {
			for doc := -1; doc <= 3; doc++ {
				got, err := Apply([]byte(src), doc, o)
				want, werr := applyChecked([]byte(src), doc, o)
				if fmt.Sprint(err) != fmt.Sprint(werr) || !bytes.Equal(got, want) {
					t.Errorf("%q doc %d %+v:\nApply %q, %v\nNewFile and File.Apply %q, %v", src, doc, o, got, err, want, werr)
				}
			}
		}
	}
}

// TestResplitAsSplit holds resplit to splitting the joined text again, on
// lines that split the same and on lines an edit may leave that do not.
func TestResplitAsSplit(t *testing.T) {
	cases := [][]line{
		nil,
		{{"a: 1", "\n"}, {"b: 2", "\n"}},
		{{"a: 1", "\r\n"}, {"b: 2", ""}},
		{{"a: 1", "\n"}, {"", ""}},
		{{"a: |", "\n"}, {"  x\n  y", "\n"}},
		{{"a: 1\r", "\n"}, {"b", "\n"}},
		{{"a: 1", ""}, {"b: 2", "\n"}},
		{{"a: 1", "\n"}, {"b\r", ""}},
		{{"a: 1", "\r\n"}, {"", "\n"}},
		{{"a\r\nb", "\r\n"}},
	}
	for _, ls := range cases {
		got, want := resplit(ls), splitLines(joinLines(ls))
		if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
			t.Errorf("resplit(%q) = %q, want %q", ls, got, want)
		}
	}
}
