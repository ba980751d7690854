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
// replaced value takes its own line comment with it. Flow collections are
// edited as a whole and stay flow, except an empty {} or [] that receives
// content, which becomes block. An op that would not change the data (a Set to an equal
// value, a Delete of something absent) changes no byte.
//
// Errors name the op ("edit: set spec.replicas: ..."). Apply fails, and never
// panics, on a bad path, a document index out of range, a document that does
// not parse, or an alias on the path; every result is checked to parse to
// the intended data before it is returned.
func Apply(src []byte, doc int, ops []Op) ([]byte, error) {
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

// File is a multi-document YAML file edited a document at a time. NewFile
// checks its documents' boundaries once; each edit then reads only its own
// document, so editing many documents of a large file (an install bundle
// of a hundred objects) costs about one read of the file, not one per
// document.
type File struct {
	lines []line
	docs  []span
	eol   string
}

// NewFile splits src into lines and documents, and fails when the documents
// are not where yaml.v3 sees them (so no edit could be placed).
func NewFile(src []byte) (*File, error) {
	ls := splitLines(src)
	docs := documents(ls)
	if n, ok := countDocs(src); ok && n != len(docs) {
		return nil, fmt.Errorf("edit: cannot find the documents' boundaries (yaml.v3 sees %d documents, the text %d)", n, len(docs))
	}
	return &File{lines: ls, docs: docs, eol: fileEOL(ls)}, nil
}

// Bytes returns the file's text.
func (f *File) Bytes() []byte { return joinLines(f.lines) }

// Apply returns the file with ops applied, in order, to the document with
// 0-based index doc, as the package's Apply does; f itself is unchanged.
func (f *File) Apply(doc int, ops []Op) (*File, error) {
	if doc < 0 || doc >= len(f.docs) {
		return nil, fmt.Errorf("edit: document %d out of range: the file has %d", doc, len(f.docs))
	}
	sp := f.docs[doc]
	ed := &editor{lines: append([]line(nil), f.lines[sp.start:sp.end]...), eol: f.eol}
	for _, op := range ops {
		if err := ed.apply(op); err != nil {
			return nil, fmt.Errorf("edit: %s %s: %w", op.Action, strings.Join(op.Path, "."), err)
		}
	}
	g := &File{lines: spliceLines(f.lines, sp, ed.lines), eol: f.eol}
	g.docs = documents(g.lines)
	if len(g.docs) != len(f.docs) {
		return nil, fmt.Errorf("edit: the edit changed the number of documents from %d to %d", len(f.docs), len(g.docs))
	}
	return g, nil
}

// spliceLines returns ls with the lines of sp replaced by doc, as the text
// would split again: doc's lines re-split (an edit may write a line break
// into a line's text), and when the new last line has no line ending the
// whole text re-split, since it runs on into the next line.
func spliceLines(ls []line, sp span, doc []line) []line {
	mid := splitLines(joinLines(doc))
	if n := len(mid); sp.end < len(ls) && (n == 0 || mid[n-1].eol == "") {
		return splitLines(slices.Concat(joinLines(ls[:sp.start]), joinLines(doc), joinLines(ls[sp.end:])))
	}
	return slices.Concat(ls[:sp.start], mid, ls[sp.end:])
}

// Changes returns what applying ops to document doc changes in the file:
// Changes(f.Bytes(), applied.Bytes()), diffing only that document and a
// line either side (which is all that can differ; the line before anchors
// an insertion at the document's start as in the whole file).
func (f *File) Changes(doc int, ops []Op) ([]Change, error) {
	g, err := f.Apply(doc, ops)
	if err != nil {
		return nil, err
	}
	sp := f.docs[doc]
	grown := len(g.lines) - len(f.lines)
	lo, hi := max(sp.start-1, 0), min(sp.end+1, len(f.lines))
	if !slices.Equal(f.lines[:lo], g.lines[:lo]) || !slices.Equal(f.lines[hi:], g.lines[hi+grown:]) {
		return Changes(f.Bytes(), g.Bytes()), nil // the text split differently around the document
	}
	cs := Changes(joinLines(f.lines[lo:hi]), joinLines(g.lines[lo:hi+grown]))
	for i := range cs {
		cs[i].StartLine += lo
		cs[i].EndLine += lo
	}
	return cs, nil
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
