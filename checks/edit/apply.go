package edit

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Apply applies ops, in order, to the document with 0-based index doc of the
// multi-document YAML file src and returns the new text of the whole file.
//
// It edits text, guided by yaml.v3 node positions: everything it does not
// change stays as written (comments, blank lines, quoting, flow collections,
// "---" separators, the other documents byte for byte, line endings, a
// missing final newline — unless text added at the very end needs one, as a
// block scalar does). New text follows the document's indentation width and
// list style; keys and items carry ops' Comments as line comments; a
// replaced value's end-of-line comment stays on the line (after the key,
// when a block value takes the place of a scalar; an aligned comment keeps
// its column while the new value leaves room) unless the op's Comment takes
// its place, and the comments on the old value's other lines go with it.
// Flow collections are edited as a whole and stay flow, except an empty {}
// or [] that receives content, which becomes block. An op that would not
// change the data (a Set to an equal value, a Delete of something absent)
// changes no byte.
//
// Errors name the op ("edit: set spec.replicas: ..."). Apply fails, and never
// panics, on a bad path, a document index out of range, a document that does
// not parse, or an alias on the path; every result is checked to parse to
// the intended data before it is returned.
func Apply(src []byte, doc int, ops []Op) ([]byte, error) {
	ls := splitLines(src)
	docs := documents(ls)
	f := fileOf(ls, docs, fileEOL(ls))
	mid, parsed, err := f.edit(doc, ops)
	// NewFile's check that yaml.v3 sees the documents the text does needs
	// a parse of the whole file. A file that is one document and nothing
	// else (a values.yaml) had it already when the edit parsed the
	// document: that text parsed as one document and no more. Otherwise
	// the file is counted, and a mismatch is the error, as NewFile's.
	if !parsed || len(docs) != 1 || len(f.gaps[0]) > 0 || len(f.gaps[1]) > 0 {
		if err := checkCount(src, len(docs)); err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, err
	}
	g, err := f.with(doc, mid)
	if err != nil {
		return nil, err
	}
	return g.Bytes(), nil
}

// File is a multi-document YAML file edited a document at a time. NewFile
// checks its documents' boundaries once; each edit then reads and writes
// only its own document (and checks the boundaries around it), so editing
// every document of a large file (an install bundle, a rendered chart)
// costs about one read of the file, not one per document.
type File struct {
	// The file is gaps[0], docs[0], gaps[1], docs[1], …, gaps[len(docs)]:
	// each document's lines, and the lines between documents that belong
	// to none (mostly none; comments after a final "..."). Files share
	// these slices and never write to them.
	gaps [][]line
	docs [][]line
	eol  string
}

// NewFile splits src into lines and documents, and fails when the documents
// are not where yaml.v3 sees them (so no edit could be placed).
func NewFile(src []byte) (*File, error) {
	ls := splitLines(src)
	docs := documents(ls)
	if err := checkCount(src, len(docs)); err != nil {
		return nil, err
	}
	return fileOf(ls, docs, fileEOL(ls)), nil
}

// checkCount fails when yaml.v3 decodes src to other than docs documents
// (and they all parse).
func checkCount(src []byte, docs int) error {
	if n, ok := countDocs(src); ok && n != docs {
		return fmt.Errorf("edit: cannot find the documents' boundaries (yaml.v3 sees %d documents, the text %d)", n, docs)
	}
	return nil
}

// fileOf cuts ls at the document spans docs (as documents finds them).
func fileOf(ls []line, docs []span, eol string) *File {
	f := &File{gaps: make([][]line, 0, len(docs)+1), docs: make([][]line, 0, len(docs)), eol: eol}
	at := 0
	for _, sp := range docs {
		f.gaps = append(f.gaps, ls[at:sp.start:sp.start])
		f.docs = append(f.docs, ls[sp.start:sp.end:sp.end])
		at = sp.end
	}
	f.gaps = append(f.gaps, ls[at:])
	return f
}

// lines returns every line of the file, in order.
func (f *File) lines() []line { return slices.Concat(f.parts()...) }

// Bytes returns the file's text.
func (f *File) Bytes() []byte { return joinLines(f.parts()...) }

// parts returns the file's slices of lines in order, not copied: gaps[0],
// docs[0], gaps[1], ….
func (f *File) parts() [][]line {
	out := make([][]line, 0, len(f.gaps)+len(f.docs))
	for i := range f.gaps {
		out = append(out, f.gaps[i])
		if i < len(f.docs) {
			out = append(out, f.docs[i])
		}
	}
	return out
}

// Apply returns the file with ops applied, in order, to the document with
// 0-based index doc, as the package's Apply does; f itself is unchanged.
func (f *File) Apply(doc int, ops []Op) (*File, error) {
	mid, _, err := f.edit(doc, ops)
	if err != nil {
		return nil, err
	}
	return f.with(doc, mid)
}

// with returns the file with document doc's lines replaced by mid.
func (f *File) with(doc int, mid []line) (*File, error) {
	if !f.fits(doc, mid) {
		return f.respliced(doc, mid)
	}
	g := &File{gaps: f.gaps, docs: slices.Clone(f.docs), eol: f.eol}
	g.docs[doc] = mid
	return g, nil
}

// edit applies ops to a copy of document doc and returns its new lines, as
// the text would split again (an edit may write a line break into a
// line's text). parsed reports whether the document's text as it was
// parsed as one YAML document (which an op that reaches the parse checks).
func (f *File) edit(doc int, ops []Op) (mid []line, parsed bool, err error) {
	if doc < 0 || doc >= len(f.docs) {
		return nil, false, fmt.Errorf("edit: document %d out of range: the file has %d", doc, len(f.docs))
	}
	ed := &editor{lines: slices.Clone(f.docs[doc]), eol: f.eol}
	for _, op := range ops {
		if err := ed.apply(op); err != nil {
			return nil, ed.parsedOnce, fmt.Errorf("edit: %s %s: %w", op.Action, strings.Join(op.Path, "."), err)
		}
	}
	return resplit(ed.lines), ed.parsedOnce, nil
}

// resplit returns ls as its text would split into lines again: ls itself
// when it would split the same (every line but the last ends with a line
// break, no text holds one, none ends with the "\r" of a "\r\n", the last
// is not empty without an ending), else the text split anew. An edit
// leaves most of a document's lines as they were split.
func resplit(ls []line) []line {
	for i, l := range ls {
		last := i == len(ls)-1
		switch {
		case strings.IndexByte(l.text, '\n') >= 0,
			l.eol == "\n" && strings.HasSuffix(l.text, "\r"),
			l.eol != "\n" && l.eol != "\r\n" && (!last || l.eol != "" || l.text == ""):
			return splitLines(joinLines(ls))
		}
	}
	return ls
}

// fits reports whether mid can take the place of document doc's lines
// with the rest of the file as it is. It cannot, and the whole file must be
// read again, when mid's last line has no line ending and text follows (it
// runs on into the next line), or when the documents around doc would not
// keep their boundaries (which the lines from the document before doc to
// the end of the one after it decide).
func (f *File) fits(doc int, mid []line) bool {
	n := len(mid)
	if (n == 0 || mid[n-1].eol == "") && f.lineAfter(doc) != nil {
		return false
	}
	at := len(f.gaps[doc]) // where the document starts in its window
	if doc > 0 {
		at += len(f.docs[doc-1])
	}
	return sameBoundaries(f.windowParts(doc, f.docs[doc]), f.windowParts(doc, mid), at, len(f.docs[doc]), n)
}

// windowParts returns the lines from the start of the document before doc
// (the file's start for the first) to the end of the one after it (the
// file's end for the last), with lines as document doc's: the slices they
// are in, in order, not copied.
func (f *File) windowParts(doc int, lines []line) [][]line {
	var out [][]line
	if doc > 0 {
		out = append(out, f.docs[doc-1])
	}
	out = append(out, f.gaps[doc], lines, f.gaps[doc+1])
	if doc+1 < len(f.docs) {
		out = append(out, f.docs[doc+1])
	} else {
		out = append(out, f.gaps[doc+2:]...)
	}
	return out
}

// sameBoundaries reports whether the document boundaries found in window
// new are those found in window old, where old's lines [at, at+oldLen)
// became new's [at, at+newLen). Both windows start where a document starts
// (or at the file's start), so the scan starts as documents starts; the
// lines after the window are the same in both files, so the same state at
// the window's end means the same boundaries after it.
func sameBoundaries(old, new [][]line, at, oldLen, newLen int) bool {
	var a, b docScanner
	scan(&a, old)
	scan(&b, new)
	moved := func(i int) (int, bool) { // old's line i in new's numbering
		switch {
		case i <= at:
			return i, true
		case i >= at+oldLen:
			return i - oldLen + newLen, true
		}
		return 0, false // inside the edited document
	}
	same := func(i, j int) bool {
		m, ok := moved(i)
		return ok && m == j
	}
	if len(a.docs) != len(b.docs) || a.in != b.in || !same(a.pending, b.pending) {
		return false
	}
	for k := range a.docs {
		if !same(a.docs[k].start, b.docs[k].start) || !same(a.docs[k].end, b.docs[k].end) {
			return false
		}
	}
	return true
}

// scan steps s over the lines of parts, numbered from 0 across them.
func scan(s *docScanner, parts [][]line) {
	i := 0
	for _, p := range parts {
		for _, l := range p {
			s.step(i, l.text)
			i++
		}
	}
}

// respliced is Apply reading the whole file again: document doc's lines
// replaced by mid, the text split into lines and documents anew.
func (f *File) respliced(doc int, mid []line) (*File, error) {
	before := f.lines()
	start := f.firstLine(doc)
	ls := spliceLines(before, span{start, start + len(f.docs[doc])}, mid)
	docs := documents(ls)
	if len(docs) != len(f.docs) {
		return nil, fmt.Errorf("edit: the edit changed the number of documents from %d to %d", len(f.docs), len(docs))
	}
	return fileOf(ls, docs, f.eol), nil
}

// firstLine returns the 0-based index, in the whole file, of document
// doc's first line.
func (f *File) firstLine(doc int) int {
	start := len(f.gaps[0])
	for i := 0; i < doc; i++ {
		start += len(f.docs[i]) + len(f.gaps[i+1])
	}
	return start
}

// spliceLines returns ls with the lines of sp replaced by doc, as the text
// would split again: when doc's last line has no line ending the whole
// text is re-split, since it runs on into the next line.
func spliceLines(ls []line, sp span, doc []line) []line {
	if n := len(doc); sp.end < len(ls) && (n == 0 || doc[n-1].eol == "") {
		return splitLines(joinLines(ls[:sp.start], doc, ls[sp.end:]))
	}
	return slices.Concat(ls[:sp.start], doc, ls[sp.end:])
}

// Changes returns what applying ops to document doc changes in the file:
// Changes(f.Bytes(), applied.Bytes()), diffing only that document and a
// line either side (which is all that can differ; the line before anchors
// an insertion at the document's start as in the whole file).
func (f *File) Changes(doc int, ops []Op) ([]Change, error) {
	mid, _, err := f.edit(doc, ops)
	if err != nil {
		return nil, err
	}
	if !f.fits(doc, mid) {
		g, err := f.respliced(doc, mid)
		if err != nil {
			return nil, err
		}
		return Changes(f.Bytes(), g.Bytes()), nil // the text split differently around the document
	}
	// Only the document changed: diff it with the line before and after.
	start := f.firstLine(doc)
	var before, after []line
	if prev := f.lineBefore(doc); prev != nil {
		before = []line{*prev}
	}
	if next := f.lineAfter(doc); next != nil {
		after = []line{*next}
	}
	lo := start - len(before)
	cs := Changes(joinLines(before, f.docs[doc], after), joinLines(before, mid, after))
	for i := range cs {
		cs[i].StartLine += lo
		cs[i].EndLine += lo
	}
	return cs, nil
}

// lineBefore returns the last line before document doc, or nil at the
// start of the file.
func (f *File) lineBefore(doc int) *line {
	for i := doc; i >= 0; i-- {
		if g := f.gaps[i]; len(g) > 0 {
			return &g[len(g)-1]
		}
		if i > 0 && len(f.docs[i-1]) > 0 {
			return &f.docs[i-1][len(f.docs[i-1])-1]
		}
	}
	return nil
}

// lineAfter returns the first line after document doc, or nil at the end
// of the file.
func (f *File) lineAfter(doc int) *line {
	for i := doc + 1; i < len(f.gaps); i++ {
		if len(f.gaps[i]) > 0 {
			return &f.gaps[i][0]
		}
		if i < len(f.docs) && len(f.docs[i]) > 0 {
			return &f.docs[i][0]
		}
	}
	return nil
}

// countDocs counts the documents yaml.v3 decodes from src; ok is false when
// some document does not parse.
func countDocs(src []byte) (n int, ok bool) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var d yaml.Node
		switch err := decode(dec, &d); err {
		case nil:
			n++
		case io.EOF:
			return n, true
		default:
			return n, false
		}
	}
}
