package edit

import (
	"bytes"
	"fmt"
	"io"
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
	ls := splitLines(src)
	docs := documents(ls)
	if n, ok := countDocs(src); ok && n != len(docs) {
		return nil, fmt.Errorf("edit: cannot find the documents' boundaries (yaml.v3 sees %d documents, the text %d)", n, len(docs))
	}
	if doc < 0 || doc >= len(docs) {
		return nil, fmt.Errorf("edit: document %d out of range: the file has %d", doc, len(docs))
	}
	sp := docs[doc]
	ed := &editor{lines: append([]line(nil), ls[sp.start:sp.end]...), eol: fileEOL(ls)}
	for _, op := range ops {
		if err := ed.apply(op); err != nil {
			return nil, fmt.Errorf("edit: %s %s: %w", op.Action, strings.Join(op.Path, "."), err)
		}
	}
	var out bytes.Buffer
	out.Grow(len(src) + 256)
	out.Write(joinLines(ls[:sp.start]))
	out.Write(joinLines(ed.lines))
	out.Write(joinLines(ls[sp.end:]))
	if n := len(documents(splitLines(out.Bytes()))); n != len(docs) {
		return nil, fmt.Errorf("edit: the edit changed the number of documents from %d to %d", len(docs), n)
	}
	return out.Bytes(), nil
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
