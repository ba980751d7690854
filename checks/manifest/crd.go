package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"regexp"
)

var crdKindRE = regexp.MustCompile(`(?m)^kind:[ \t]*["']?CustomResourceDefinition["']?[ \t]*(#.*)?\r?$`)

// isCRD reports whether a document's text declares a top-level
// kind: CustomResourceDefinition.
func isCRD(text []byte) bool {
	return bytes.Contains(text, []byte("CustomResourceDefinition")) && crdKindRE.Match(text)
}

// blankTopLevelBlock returns a copy of text in which the top-level key and
// every line of its block are emptied, keeping each line ending so every
// other line keeps its number. The copy starts small and grows as it is
// written: a CRD's is its header and a newline for each line of its spec,
// a few percent of the text, where a quarter of the text was set aside
// (11 MB over the CRDs of the corpus, 1 MB as it grows).
func blankTopLevelBlock(text []byte, key string) []byte {
	out := make([]byte, 0, min(len(text), 4<<10))
	inBlock := false
	prefix := []byte(key + ":")
	for off := 0; off < len(text); {
		end := bytes.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		l := text[off:next]
		switch {
		case bytes.HasPrefix(l, prefix):
			inBlock = true
		case inBlock && len(l) > 0 && l[0] != ' ' && l[0] != '\t' && l[0] != '#' && l[0] != '\n' && l[0] != '\r':
			inBlock = false
		}
		if inBlock {
			if end >= 0 {
				out = append(out, '\n')
			}
		} else {
			out = append(out, l...)
		}
		off = next
	}
	return out
}

// crdSpan is where a CRD document's text lies in its file's source (n
// bytes from off), with a hash of those bytes; n is 0 when the text is
// not the source's bytes as they are.
type crdSpan struct {
	off, n int
	sum    uint64
	// marker, when not 0, is one past the offset in the text of the
	// document marker its chunk blanked to spaces (a "---" after a
	// comment header, as a CRD file fetched from a project's release
	// often starts): the source's bytes have the marker, and the text
	// read again is given with it blanked.
	marker int
}

// spanSeed seeds the spans' hashes: one process parses and reads again.
var spanSeed = maphash.MakeSeed()

// spanOf returns where chunk c's text lies in src, if it lies there as it is.
func spanOf(src []byte, c chunk) crdSpan {
	end := c.textOff + len(c.text)
	if c.textOff < 0 || end > len(src) {
		return crdSpan{}
	}
	raw := src[c.textOff:end]
	if bytes.Equal(raw, c.text) {
		return crdSpan{off: c.textOff, n: len(c.text), sum: maphash.Bytes(spanSeed, c.text)}
	}
	// The text as appendChunk makes it of a document whose marker
	// follows a comment header: the source's bytes with that marker
	// blanked. Its span reads them, and CRDSource blanks the marker again.
	m := markerOffset(raw)
	if m < 0 || m+len(blankedMarker) > len(raw) || !bytes.Equal(raw[:m], c.text[:m]) ||
		!bytes.Equal(c.text[m:m+len(blankedMarker)], []byte(blankedMarker)) || !bytes.Equal(raw[m+len(blankedMarker):], c.text[m+len(blankedMarker):]) {
		return crdSpan{}
	}
	return crdSpan{off: c.textOff, n: len(raw), sum: maphash.Bytes(spanSeed, raw), marker: m + 1}
}

// blankedMarker is what a document marker is blanked to in a chunk's text.
const blankedMarker = "   "

// DropCRDTexts lets go of the text of every CRD of f whose spec was skipped
// and whose text readAt can read again (n bytes of the file from off):
// CRDSource reads it there when a rule needs it. A run over many files
// then holds the CRDs' text, megabytes of schemas mostly, only for those
// whose kinds it looks up, and only while it reads them.
func (f *File) DropCRDTexts(readAt func(off, n int) ([]byte, error)) {
	for _, o := range f.Objects {
		if o.CRDText != nil && o.crdSpan.n > 0 {
			o.CRDText, o.crdReadAt = nil, readAt
		}
	}
}

// CRDSource returns the text of a CRD whose spec was skipped: CRDText, or
// the text read again from its file when DropCRDTexts let it go (an error
// when the file changed since it was parsed). It is nil for any other
// document.
func (o *Object) CRDSource() ([]byte, error) {
	if o.CRDText != nil || o.crdReadAt == nil {
		return o.CRDText, nil
	}
	b, err := o.crdReadAt(o.crdSpan.off, o.crdSpan.n)
	if err != nil {
		return nil, fmt.Errorf("reading it again: %w", err)
	}
	if len(b) != o.crdSpan.n || maphash.Bytes(spanSeed, b) != o.crdSpan.sum {
		return nil, errors.New("its file changed while it was checked")
	}
	if m := o.crdSpan.marker; m > 0 {
		b = bytes.Clone(b) // the reader's bytes may be its source's
		copy(b[m-1:], blankedMarker)
	}
	return b, nil
}
