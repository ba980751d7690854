package crdschema

import (
	"bytes"
	"math"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v2"
)

// A version's schema block, as generators write it, uses a small part of
// YAML: block mappings and sequences, plain and quoted scalars, literal
// block scalars, comments. yaml.v2's parser, which decodeSchema used for
// every block, was three quarters of decoding it (its tokens, events and
// node tree before the values), and the values it builds are garbage once
// the schema is filled in. readBlock reads that part of YAML line by line
// into the very values yaml.v2's Unmarshal into an `any` gives
// (map[any]any, []any, strings, and the scalars yaml.v2 resolves, which it
// asks yaml.v2 for), and gives up on anything else: a tab, a carriage
// return, a character YAML does not print, an anchor, alias, tag,
// directive or merge key, a flow collection other than [] and {}, a folded
// block scalar, a block scalar with an indentation indicator or leading
// blank lines, a double-quoted scalar with an escape other than \\ \"
// \n \t "\ ", a quoted scalar whose next line is not indented, a complex key, a line indented where
// nothing can start. The caller then parses the block with yaml.v2, as
// before. TestReadBlockAsYAMLv2 holds it to yaml.v2 on every schema
// block of the corpus, and FuzzReadBlock on what the fuzzer makes.

// readBlock returns what yaml.Unmarshal of block into an `any` gives, or
// false when block is not in the part of YAML it reads.
func readBlock(block []byte) (any, bool) {
	if len(block) == 0 || block[len(block)-1] != '\n' || !printable(block) {
		return nil, false
	}
	r := &blockReader{src: block, lines: make([]blockLine, 0, bytes.Count(block, []byte("\n")))}
	for off := 0; off < len(block); {
		end := off + bytes.IndexByte(block[off:], '\n')
		r.lines = append(r.lines, lineOf(block, off, end))
		off = end + 1
	}
	r.skip()
	if r.i >= len(r.lines) || r.lines[r.i].indent != 0 {
		return nil, false
	}
	v, ok := r.mapping(r.i, 0)
	if !ok {
		return nil, false
	}
	if r.skip(); r.i < len(r.lines) {
		return nil, false // something after the top mapping
	}
	return v, true
}

// printable reports whether b is UTF-8 of the characters YAML reads as
// they are: no tab, carriage return or other control character, no byte
// order mark, no line break but '\n' (not NEL, U+2028 or U+2029).
func printable(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError || r < 0xa0 || (r >= 0xd800 && r <= 0xdfff) || r == 0xfeff || r == 0xfffe || r == 0xffff || r == 0x2028 || r == 0x2029 {
			return false
		}
		i += n
	}
	return true
}

// blockLine is one line of a block: its bytes are src[start:end] (no
// newline), indent its leading spaces; blank says it holds only spaces,
// comment that its first other character is '#'.
type blockLine struct {
	start, end, indent int
	blank, comment     bool
}

func lineOf(src []byte, start, end int) blockLine {
	l := blockLine{start: start, end: end}
	for l.indent < end-start && src[start+l.indent] == ' ' {
		l.indent++
	}
	l.blank = l.indent == end-start
	l.comment = !l.blank && src[start+l.indent] == '#'
	return l
}

// blockReader reads a block's lines; i is the next line to read.
type blockReader struct {
	src   []byte
	lines []blockLine
	i     int
}

// skip moves past blank and comment lines.
func (r *blockReader) skip() {
	for r.i < len(r.lines) && (r.lines[r.i].blank || r.lines[r.i].comment) {
		r.i++
	}
}

// text is line n's bytes from column col.
func (r *blockReader) text(n, col int) []byte {
	l := r.lines[n]
	return r.src[l.start+col : l.end]
}

// isDash reports whether t starts a block sequence entry.
func isDash(t []byte) bool {
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ')
}

// node reads the value of a key or entry written on the lines after it:
// a mapping or sequence indented deeper than parent, or a sequence at
// parent itself when sameIndentSeq (a mapping's key may have its entries'
// dashes at its own indentation); null when nothing follows there.
func (r *blockReader) node(parent int, sameIndentSeq bool) (any, bool) {
	r.skip()
	if r.i >= len(r.lines) {
		return nil, true
	}
	l := r.lines[r.i]
	t := r.text(r.i, l.indent)
	switch {
	case l.indent > parent && isDash(t):
		return r.sequence(l.indent)
	case l.indent > parent:
		return r.mapping(r.i, l.indent)
	case l.indent == parent && sameIndentSeq && isDash(t):
		return r.sequence(l.indent)
	}
	return nil, true
}

// mapping reads a block mapping whose first key is at column col of line
// n, its other keys at the start of later lines indented col.
func (r *blockReader) mapping(n, col int) (any, bool) {
	m := map[any]any{}
	for first := true; ; first = false {
		if !first {
			r.skip()
			if r.i >= len(r.lines) || r.lines[r.i].indent < col {
				return m, true
			}
			if r.lines[r.i].indent > col {
				return nil, false
			}
			n = r.i
		}
		key, rest, ok := splitKey(r.text(n, col)) // a dash here too: an entry where a key goes
		if !ok {
			return nil, false
		}
		k, ok := resolvePlain(key)
		if !ok {
			return nil, false
		}
		r.i = n + 1
		var v any
		if rest = trimComment(rest); len(rest) == 0 {
			v, ok = r.node(col, true)
		} else {
			v, ok = r.scalar(rest, col)
		}
		if !ok {
			return nil, false
		}
		m[k] = v
	}
}

// sequence reads a block sequence whose dashes are at column col.
func (r *blockReader) sequence(col int) (any, bool) {
	out := []any{}
	for {
		r.skip()
		if r.i >= len(r.lines) || r.lines[r.i].indent < col {
			return out, true
		}
		n := r.i
		if r.lines[n].indent > col {
			return nil, false
		}
		t := r.text(n, col)
		if !isDash(t) {
			return out, true // the next key of the mapping the sequence is a value in
		}
		at := col + 1
		for at < r.lines[n].end-r.lines[n].start && r.src[r.lines[n].start+at] == ' ' {
			at++
		}
		rest := trimComment(r.text(n, at))
		r.i = n + 1
		var v any
		var ok bool
		switch {
		case len(rest) == 0:
			v, ok = r.node(col, false)
		case isDash(rest): // "- - x"
			return nil, false
		case entryLike(rest):
			r.i = n
			v, ok = r.mapping(n, at)
		default:
			v, ok = r.scalar(rest, col)
		}
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
}

// entryLike reports whether t, an entry's text after its dash, starts a
// mapping (a plain key followed by ": " or a final ":").
func entryLike(t []byte) bool {
	if t[0] == '\'' || t[0] == '"' {
		return false // a quoted scalar; one followed by a colon is refused by scalar
	}
	_, _, ok := splitKey(t)
	return ok || bytes.Contains(t, []byte(": ")) || t[len(t)-1] == ':'
}

// splitKey splits t at a plain key's colon: the key, and the rest after
// the colon's space. ok is false for anything but a plain key on one
// line, without an indicator first, a space before its colon, or " #".
func splitKey(t []byte) (key, rest []byte, ok bool) {
	if len(t) == 0 || strings.IndexByte("-?:,[]{}#&*!|>'\"%@`<", t[0]) >= 0 {
		return nil, nil, false
	}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case ':':
			if i+1 == len(t) || t[i+1] == ' ' {
				if t[i-1] == ' ' || i > 1024 {
					return nil, nil, false
				}
				if i+1 == len(t) {
					return t[:i], nil, true
				}
				return t[:i], bytes.TrimLeft(t[i+1:], " "), true
			}
		case '#':
			if t[i-1] == ' ' {
				return nil, nil, false
			}
		}
	}
	return nil, nil, false
}

// trimComment is t without a trailing comment (" #…") and spaces when it
// starts one or is only one; t otherwise, as a scalar reads its own end.
func trimComment(t []byte) []byte {
	if len(t) > 0 && t[0] == '#' {
		return nil
	}
	return t
}

// scalar reads a value written after a key or dash, rest its text from
// there (r.i is the line after): a block literal, a quoted or plain scalar (over several
// lines when the lines after it are indented deeper than parent), or []
// or {}.
func (r *blockReader) scalar(rest []byte, parent int) (any, bool) {
	switch rest[0] {
	case '|':
		return r.literal(rest, parent)
	case '\'':
		return r.singleQuoted(rest, parent)
	case '"':
		return r.doubleQuoted(rest, parent)
	case '[', '{':
		if after, ok := afterToken(rest, 2); ok && (string(rest[:2]) == "[]" || string(rest[:2]) == "{}") && len(after) == 0 {
			if rest[0] == '[' {
				return []any{}, true
			}
			return map[any]any{}, true
		}
		return nil, false
	case '>', '&', '*', '!', '%', '@', '`', '?', ',', ']', '}', '#':
		return nil, false
	case '-', ':':
		if len(rest) == 1 || rest[1] == ' ' {
			return nil, false
		}
	}
	return r.plain(rest, parent)
}

// afterToken returns what follows a token of n bytes at t's start: it must
// be nothing, or spaces and a comment.
func afterToken(t []byte, n int) ([]byte, bool) {
	if len(t) < n {
		return nil, false
	}
	t = t[n:]
	trimmed := bytes.TrimLeft(t, " ")
	if len(trimmed) == 0 || (trimmed[0] == '#' && len(trimmed) < len(t)) {
		return nil, true
	}
	return trimmed, false
}

// plain reads a plain scalar starting with first: its first line's text,
// and any lines after indented deeper than parent, folded as YAML folds
// them (a line break is a space, each blank line between a newline). It
// resolves as yaml.v2 resolves a plain scalar.
func (r *blockReader) plain(first []byte, parent int) (any, bool) {
	text, commented, ok := plainLine(first)
	if !ok {
		return nil, false
	}
	var folded []byte
	blanks := 0
	for j := r.i; j < len(r.lines); j++ {
		l := r.lines[j]
		if l.blank {
			blanks++
			continue
		}
		if l.indent <= parent {
			break
		}
		if l.comment {
			return nil, false // a comment where the scalar might go on
		}
		t, c, ok := plainLine(r.text(j, l.indent))
		if !ok || commented || isIndicator(t) {
			return nil, false // a comment ends a plain scalar: a line after it is not one
		}
		commented = c
		if folded == nil {
			folded = append([]byte(nil), text...)
		}
		if blanks == 0 {
			folded = append(folded, ' ')
		}
		for ; blanks > 0; blanks-- {
			folded = append(folded, '\n')
		}
		folded = append(folded, t...)
		r.i = j + 1
	}
	if folded != nil {
		if strings.IndexByte("+-.0123456789", folded[0]) >= 0 {
			return nil, false // left to yaml.v2 to say what it resolves to
		}
		return string(folded), true
	}
	return resolvePlain(text)
}

// isIndicator reports whether t, a plain scalar's line after the first,
// starts with what would end the scalar or start something else there: a
// dash, question mark or colon and a space.
func isIndicator(t []byte) bool {
	return (t[0] == '-' || t[0] == '?' || t[0] == ':') && (len(t) == 1 || t[1] == ' ')
}

// plainLine is a plain scalar's text on one line (its end before " #" and
// spaces; commented says a comment was cut), false when the line holds
// what ends or breaks one (": ", a final ':').
func plainLine(t []byte) (text []byte, commented, ok bool) {
	if i := bytes.Index(t, []byte(" #")); i >= 0 {
		t, commented = t[:i], true
	}
	t = bytes.TrimRight(t, " ")
	if len(t) == 0 || bytes.Contains(t, []byte(": ")) || t[len(t)-1] == ':' {
		return nil, false, false
	}
	return t, commented, true
}

// literal reads a literal block scalar whose header (`|`, `|-` or `|+`,
// then spaces and a comment) is h, its lines those after it indented as
// the first of them, deeper than parent.
func (r *blockReader) literal(h []byte, parent int) (any, bool) {
	chomp := byte(0)
	if len(h) > 1 && (h[1] == '-' || h[1] == '+') {
		chomp = h[1]
	}
	n := 1
	if chomp != 0 {
		n = 2
	}
	if after, ok := afterToken(h, n); !ok || len(after) > 0 {
		return nil, false
	}
	if r.i >= len(r.lines) || r.lines[r.i].blank {
		return nil, false // no line, or blank lines before the first: left to yaml.v2
	}
	indent := r.lines[r.i].indent
	if indent <= parent {
		return nil, false // an empty block scalar
	}
	first, last, trailing := r.i, r.i, 0 // its lines, and the blank lines after the last
	for ; r.i < len(r.lines); r.i++ {
		l := r.lines[r.i]
		if l.blank {
			if l.end-l.start > indent {
				return nil, false // spaces past the indentation are text
			}
			trailing++
			continue
		}
		if l.indent < indent {
			break
		}
		last, trailing = r.i, 0
	}
	size := trailing + 1
	for j := first; j <= last; j++ {
		size += max(r.lines[j].end-r.lines[j].start-indent, 0) + 1
	}
	var b strings.Builder
	b.Grow(size)
	for j := first; j <= last; j++ {
		if j > first {
			b.WriteByte('\n')
		}
		if !r.lines[j].blank {
			b.Write(r.text(j, indent))
		}
	}
	switch chomp {
	case '-':
	case '+':
		b.WriteByte('\n')
		for ; trailing > 0; trailing-- {
			b.WriteByte('\n')
		}
	default:
		b.WriteByte('\n')
	}
	return b.String(), true
}

// singleQuoted reads a single-quoted scalar starting at rest (line n),
// over several lines when it does not end on this one: a line break is a
// space, each blank line between a newline, spaces around a break go.
func (r *blockReader) singleQuoted(rest []byte, parent int) (any, bool) {
	var b []byte
	t := rest[1:]
	blanks, cont := 0, false
	for {
		i := 0
		for i < len(t) {
			if t[i] == '\'' {
				if i+1 < len(t) && t[i+1] == '\'' {
					i += 2
					continue
				}
				break
			}
			i++
		}
		if i < len(t) { // the closing quote
			b = appendFolded(b, t[:i], blanks, cont)
			after, ok := afterToken(t[i:], 1)
			if !ok || len(after) > 0 {
				return nil, false
			}
			return strings.ReplaceAll(string(b), "''", "'"), true
		}
		b = appendFolded(b, bytes.TrimRight(t, " "), blanks, cont)
		blanks, cont = 0, true
		for {
			if r.i >= len(r.lines) {
				return nil, false
			}
			l := r.lines[r.i]
			r.i++
			if l.blank {
				blanks++
				continue
			}
			if l.indent <= parent {
				return nil, false // yaml.v2 reads it; whether it is the same is not checked here
			}
			t = r.text(r.i-1, l.indent)
			break
		}
	}
}

// appendFolded appends a quoted scalar's line t to b: first after a
// space, or after a newline per blank line before it, when it continues
// an earlier line (cont).
func appendFolded(b, t []byte, blanks int, cont bool) []byte {
	if cont {
		if blanks == 0 {
			b = append(b, ' ')
		}
		for ; blanks > 0; blanks-- {
			b = append(b, '\n')
		}
	}
	return append(b, t...)
}

// doubleQuoted reads a double-quoted scalar starting at rest, over
// several lines when it does not end on this one (folded as singleQuoted
// folds, a backslash at a line's end joining it to the next), with no
// escape but \\ \" \n \t and "\ " (a space).
func (r *blockReader) doubleQuoted(rest []byte, parent int) (any, bool) {
	var b []byte
	t := rest[1:]
	blanks, cont, joined := 0, false, false
	for {
		end, closed := len(t), false
		for i := 0; i < len(t); i++ {
			if t[i] == '\\' {
				i++
			} else if t[i] == '"' {
				end, closed = i, true
				break
			}
		}
		line := t[:end]
		if !closed {
			line = bytes.TrimRight(line, " ")
		}
		escapedBreak := false
		if !closed && len(line) > 0 && line[len(line)-1] == '\\' && (len(line)-len(bytes.TrimRight(line, "\\")))%2 == 1 {
			if len(line) < end {
				return nil, false // "\ ", an escaped space, before the break
			}
			line, escapedBreak = line[:len(line)-1], true
		}
		if !joined {
			b = appendFolded(b, nil, blanks, cont)
		}
		for i := 0; i < len(line); i++ {
			c := line[i]
			if c != '\\' {
				b = append(b, c)
				continue
			}
			if i++; i == len(line) {
				return nil, false
			}
			switch line[i] {
			case '\\', '"', ' ':
				b = append(b, line[i])
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			default:
				return nil, false
			}
		}
		if closed {
			if after, ok := afterToken(t[end:], 1); !ok || len(after) > 0 {
				return nil, false
			}
			return string(b), true
		}
		blanks, cont, joined = 0, true, escapedBreak
		for {
			if r.i >= len(r.lines) {
				return nil, false
			}
			l := r.lines[r.i]
			r.i++
			if l.blank {
				if joined {
					return nil, false // blank lines after an escaped break: left to yaml.v2
				}
				blanks++
				continue
			}
			if l.indent <= parent {
				return nil, false
			}
			t = r.text(r.i-1, l.indent)
			break
		}
	}
}

// resolvePlain resolves a plain scalar on one line as yaml.v2 does: a
// string unless it starts as a number might (then yaml.v2 says what it
// is) or is one of YAML 1.1's words for true, false and null.
func resolvePlain(t []byte) (any, bool) {
	if s, ok := commonWords[string(t)]; ok {
		return s, true
	}
	switch t[0] {
	case '+', '-', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("...")) {
			return nil, false // a document marker when read alone
		}
		var v any
		if yaml.Unmarshal(t, &v) != nil {
			return nil, false
		}
		switch f := v.(type) {
		case string, int, int64, uint64, bool, nil:
			return v, true
		case float64:
			return v, !math.IsNaN(f) // NaN, which no comparison holds equal, is left to yaml.v2
		}
		return nil, false
	case '<':
		return nil, false // the merge key, or near it
	}
	if v, ok := yamlWords[string(t)]; ok {
		return v, true
	}
	return string(t), true
}

// yamlWords are the plain scalars yaml.v2 reads as true, false or null.
var yamlWords = map[string]any{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"true": true, "True": true, "TRUE": true, "on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"false": false, "False": false, "FALSE": false, "off": false, "Off": false, "OFF": false,
	"~": nil, "null": nil, "Null": nil, "NULL": nil,
}

// commonWords are keys and values most schemas repeat, given as one
// string each rather than a copy per use.
var commonWords = func() map[string]any {
	m := map[string]any{}
	for _, w := range []string{
		"openAPIV3Schema", "description", "type", "properties", "items", "required", "format", "enum",
		"additionalProperties", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string",
		"x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type", "x-kubernetes-validations",
		"anyOf", "allOf", "oneOf", "pattern", "default", "minimum", "maximum", "minLength", "maxLength",
		"minItems", "maxItems", "nullable", "rule", "message", "name", "namespace", "key", "value",
		"string", "object", "array", "integer", "boolean", "number", "int32", "int64", "atomic", "map", "set",
		"granular", "int-or-string", "date-time", "metadata", "spec", "status", "apiVersion", "kind",
		"labels", "annotations", "operator", "values", "effect", "port", "path", "image", "resources",
	} {
		m[w] = w
	}
	return m
}()
