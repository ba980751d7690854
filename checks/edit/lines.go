package edit

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// line is one line of the file: its text without the line ending, and the
// ending itself ("\n", "\r\n", or "" for a last line without one).
type line struct {
	text string
	eol  string
}

// splitLines cuts b into lines, keeping each line's own ending.
func splitLines(b []byte) []line {
	var ls []line
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			ls = append(ls, line{text: string(b)})
			break
		}
		t, eol := b[:i], "\n"
		if len(t) > 0 && t[len(t)-1] == '\r' {
			t, eol = t[:len(t)-1], "\r\n"
		}
		ls = append(ls, line{text: string(t), eol: eol})
		b = b[i+1:]
	}
	return ls
}

// joinLines is the inverse of splitLines: the text of the lines of parts,
// one after another, in one allocation.
func joinLines(parts ...[]line) []byte {
	n := 0
	for _, ls := range parts {
		for _, l := range ls {
			n += len(l.text) + len(l.eol)
		}
	}
	out := make([]byte, 0, n)
	for _, ls := range parts {
		for _, l := range ls {
			out = append(out, l.text...)
			out = append(out, l.eol...)
		}
	}
	return out
}

// joinText is joinLines as a string, made with one copy of the text.
func joinText(ls []line) string {
	n := 0
	for _, l := range ls {
		n += len(l.text) + len(l.eol)
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range ls {
		b.WriteString(l.text)
		b.WriteString(l.eol)
	}
	return b.String()
}

// fileEOL is the line ending the file uses (that of its first line with
// one), "\n" by default.
func fileEOL(ls []line) string {
	for _, l := range ls {
		if l.eol != "" {
			return l.eol
		}
	}
	return "\n"
}

// isMarker reports whether t is a document marker line ("---" or "...",
// alone or followed by blanks and more).
func isMarker(t, m string) bool {
	t = strings.TrimPrefix(t, "\ufeff")
	if !strings.HasPrefix(t, m) {
		return false
	}
	return len(t) == 3 || t[3] == ' ' || t[3] == '\t'
}

// isBlank reports whether t holds only spaces and tabs.
func isBlank(t string) bool { return strings.TrimLeft(t, " \t") == "" }

// isComment reports whether t is a comment-only line.
func isComment(t string) bool { return strings.HasPrefix(strings.TrimLeft(t, " \t"), "#") }

// indentOf is the number of leading spaces of t.
func indentOf(t string) int { return len(t) - len(strings.TrimLeft(t, " ")) }

// span is a range of lines [start, end) (0-based) of the file.
type span struct{ start, end int }

// documents finds the line range of every document of the file, as the
// yaml.v3 decoder counts them: a document starts at explicit "---" or at its
// first content line; comment lines before it belong to it; a "..." line ends
// it. Comment-only text that no "---" follows is not a document.
func documents(ls []line) []span {
	var s docScanner
	for i, l := range ls {
		s.step(i, l.text)
	}
	if s.in {
		s.docs = append(s.docs, span{s.pending, len(ls)})
	}
	return s.docs
}

// docScanner is documents read line by line: the documents closed so far,
// and whether one is open (begun at line pending).
type docScanner struct {
	docs    []span
	pending int  // first line not yet given to a document
	in      bool // inside a document
}

// step reads line i, whose text is t.
func (s *docScanner) step(i int, t string) {
	switch {
	case isMarker(t, "---"):
		if s.in {
			s.docs = append(s.docs, span{s.pending, i})
			s.pending = i
		}
		s.in = true
	case isMarker(t, "..."):
		if s.in {
			s.docs = append(s.docs, span{s.pending, i + 1})
			s.in = false
		}
		s.pending = i + 1
	case !s.in && !isBlank(t) && !isComment(t) && !strings.HasPrefix(t, "%"):
		s.in = true
	}
}

// byteCol converts a 1-based rune column of t to a byte offset.
func byteCol(t string, col int) int {
	off := 0
	for i := 1; i < col && off < len(t); i++ {
		_, w := utf8.DecodeRuneInString(t[off:])
		off += w
	}
	return off
}

// decode reads the next document from dec, turning a panic inside yaml.v3
// (there have been some on malformed input) into an error.
func decode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return dec.Decode(n)
}
