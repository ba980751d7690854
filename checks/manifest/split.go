package manifest

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// chunk is the text of one document and where it sits in its file.
type chunk struct {
	// text is the document's lines: a bare "---" line that opens it is
	// left out (textLine is then the next line); a marker with content or
	// after a comment header is blanked to spaces instead.
	text      []byte
	startLine int // 1-based file line of the document's first line (its marker)
	textLine  int // 1-based file line of text's first line
	textOff   int // byte offset in the file of text's first line
	endLine   int // 1-based file line of the document's last line
}

// splitDocuments cuts a file at its document markers ("---" or "..." at the
// start of a line). Splitting the text first means one broken document does
// not stop the others from being read. A marker line stays part of the chunk
// it opens, blanked to spaces, so line and column numbers need no mapping and
// content on the marker line ("--- {a: 1}") is kept.
//
// Comments and blank lines before the first marker belong to the first
// document, as they do for yaml.v3 (a licence header above "---" is not a
// document of its own), so document indexes agree with package edit.
func splitDocuments(src []byte) []chunk {
	var out []chunk
	start, startLine := 0, 1
	line := 1
	ended := false     // a "..." closed the current document
	headerOnly := true // nothing but comments and blanks so far, and no marker
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
		}
		l := src[off:next]
		switch {
		case isMarker(l, "---"):
			if headerOnly {
				headerOnly = false // the header joins the document this marker opens
				break
			}
			if off > start || line > startLine {
				out = appendChunk(out, src[start:off], start, startLine, line-1, ended)
			}
			start, startLine, ended = off, line, false
		case isMarker(l, "..."):
			headerOnly = false
			out = appendChunk(out, src[start:off], start, startLine, line-1, ended)
			start, startLine, ended = next, line+1, true
		default:
			if headerOnly && hasContent(l) {
				headerOnly = false
			}
		}
		off = next
		line++
	}
	if start < len(src) || len(out) == 0 {
		out = appendChunk(out, src[start:], start, startLine, line-1, ended)
	}
	return out
}

// hasContent reports whether a line holds anything but white space and a comment.
func hasContent(l []byte) bool {
	t := bytes.TrimSpace(l)
	return len(t) > 0 && t[0] != '#'
}

// appendChunk appends the document text, which starts at byte offset off
// and line startLine of the file.
func appendChunk(out []chunk, text []byte, off, startLine, endLine int, afterEnd bool) []chunk {
	if afterEnd && len(bytes.TrimSpace(text)) == 0 {
		return out // nothing between "..." and the next "---"
	}
	textLine := startLine
	if m := markerOffset(text); m == 0 && bareMarkerLine(text) {
		// Most documents: start the text after the marker line, so it
		// needs no copy.
		nl := bytes.IndexByte(text, '\n')
		text, textLine, off = text[nl+1:], startLine+1, off+nl+1
	} else if m >= 0 {
		t := make([]byte, len(text))
		copy(t, text)
		copy(t[m:], blankedMarker)
		text = t
	}
	if endLine < startLine {
		endLine = startLine
	}
	return append(out, chunk{text: text, startLine: startLine, textLine: textLine, textOff: off, endLine: endLine})
}

// bareMarkerLine reports whether text starts with a "---" line that holds
// nothing else (white space aside) and ends with a newline.
func bareMarkerLine(text []byte) bool {
	nl := bytes.IndexByte(text, '\n')
	return nl >= 3 && len(bytes.TrimRight(text[3:nl], " \t\r")) == 0
}

// isMarker reports whether line starts with the document marker m followed
// by white space or the end of the line.
func isMarker(line []byte, m string) bool {
	if !bytes.HasPrefix(line, []byte(m)) {
		return false
	}
	if len(line) == len(m) {
		return true
	}
	switch line[len(m)] {
	case ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// YAMLErrorLine extracts the first line number a YAML error names (relative
// to the parsed text), or 0.
func YAMLErrorLine(err error) int {
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// YAMLErrorReason is a YAML error's reason without the library prefix and
// the line number relative to the parsed text (a finding carries the
// file's line instead).
func YAMLErrorReason(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "yaml: ")
	s = yamlLineRE.ReplaceAllString(s, "")
	s = strings.TrimPrefix(strings.TrimSpace(s), ":")
	return strings.TrimSpace(s)
}

// markerOffset returns the offset of the "---" line that opens a chunk: its
// first line, or the first line after a header of comments; -1 if none.
func markerOffset(text []byte) int {
	for off := 0; off < len(text); {
		end := bytes.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		l := text[off:next]
		if isMarker(l, "---") {
			return off
		}
		if hasContent(l) {
			return -1
		}
		off = next
	}
	return -1
}

// DocumentTexts returns the text of each document of src, in order, as the
// parser sees it (without a document's bare "---" line). Two files
// whose document N is unchanged give equal texts for N.
func DocumentTexts(src []byte) [][]byte {
	cs := splitDocuments(src)
	out := make([][]byte, len(cs))
	for i, c := range cs {
		out[i] = c.text
	}
	return out
}
