package edit

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// This file makes the four kinds of text edit: replace a value, insert a
// key, append an item, delete an entry.

// colon returns the byte offset of the ":" after key k on its line.
func (ed *editor) colon(k *yaml.Node) (int, error) {
	if k.Line < 1 || k.Line > len(ed.lines) {
		return 0, errors.New("key outside the document")
	}
	t := ed.lines[k.Line-1].text
	b := byteCol(t, k.Column)
	if k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		q := strings.IndexAny(t[b:], `"'`)
		if q < 0 {
			return 0, errors.New("cannot find the key's quote")
		}
		quote := t[b+q]
		i := b + q + 1
		for ; i < len(t); i++ {
			if quote == '"' && t[i] == '\\' {
				i++
				continue
			}
			if t[i] == quote {
				if quote == '\'' && i+1 < len(t) && t[i+1] == '\'' {
					i++
					continue
				}
				break
			}
		}
		b = i + 1
	}
	for i := b; i < len(t); i++ {
		if t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t') {
			return i, nil
		}
	}
	return 0, fmt.Errorf("cannot find the \":\" after key %q at line %d", k.Value, k.Line)
}

// replace writes nv as the new value of entry e (a pair of a block mapping,
// an item of a block sequence, or the root). The entry's own end-of-line
// comment (see ownComment) stays on its first line unless cm replaces it;
// the comments on the old value's other lines, and the comment lines
// indented under it, go with it.
func (ed *editor) replace(e entry, nv *yaml.Node, cm string) error {
	if e.parent == nil {
		return ed.replaceRoot(nv)
	}
	st := ed.start(e)
	if st.line < 1 || st.line > len(ed.lines) {
		return errors.New("entry outside the document")
	}
	end := ed.extendedEnd(e) // commented-out lines of the old value go too
	t := ed.lines[st.line-1].text
	var head string
	ind := st.col - 1
	item := e.key() == nil
	if k := e.key(); k != nil {
		c, err := ed.colon(k)
		if err != nil {
			return err
		}
		head = t[:c+1]
	} else {
		head = t[:min(byteCol(t, st.col)+1, len(t))]
	}
	col := 0
	if cm == "" {
		cm, col = ed.ownComment(e, st.line, head)
	}
	ls, err := ed.valueLines(head, ind, item, nv, cm, col)
	if err != nil {
		return err
	}
	return ed.splice(st.line, end, ls)
}

// replaceRoot writes nv as the document's whole content.
func (ed *editor) replaceRoot(nv *yaml.Node) error {
	ls, err := ed.nodeLines(nv)
	if err != nil {
		return err
	}
	r := ed.root
	if isNull(r) && r.Value == "" || r.Line > ed.body {
		return ed.splice(ed.body+1, ed.body, ls)
	}
	end := ed.contentEnd(entry{})
	t := ed.lines[r.Line-1].text
	if prefix := strings.TrimRight(t[:byteCol(t, r.Column)], " \t"); prefix != "" {
		if len(ls) == 1 && isInline(nv) {
			ls[0] = prefix + " " + ls[0]
		} else {
			ls = append([]string{prefix}, ls...)
		}
	}
	if isInline(r) && isInline(nv) && len(ls) == 1 {
		// An inline root ({a: 1} # c) keeps its comment as a value does.
		if cm, col := ed.inlineComment(r, nil, r.Line, end); cm != "" {
			ls[0] = withComment(ls[0], cm, col)
		}
	}
	return ed.splice(r.Line, end, ls)
}

// ownComment returns the end-of-line comment of entry e that a replace
// keeps (its text, and the rune column it starts at when it is aligned:
// see trailingComment): the comment after the key or "-" of a block value
// that starts on a later line (line is the entry's first line, head its
// text up to and including the ":" or "-"), or the comment after an inline
// value (a scalar, alias, flow collection, or nothing: null). A block
// collection that starts on the "-" line has no comment of its own there:
// the one at the end of that line is its first entry's.
func (ed *editor) ownComment(e entry, line int, head string) (string, int) {
	v := e.value(ed.root)
	if v.Line > line {
		t := ed.lines[line-1].text
		if rest := strings.TrimSpace(t[len(head):]); isComment(rest) {
			return rest, 0
		}
		return "", 0
	}
	if !isInline(v) {
		return "", 0
	}
	return ed.inlineComment(v, e.key(), line, ed.contentEnd(e))
}

// inlineComment returns the line comment yaml.v3 gave inline value v (or
// its key k, which holds it when v is null), when it ends line first (the
// value's first line: a block scalar's header) or line last (a value
// written over several lines ends there), and the column as
// trailingComment reports it.
func (ed *editor) inlineComment(v, k *yaml.Node, first, last int) (string, int) {
	cands := []string{v.LineComment}
	if k != nil {
		cands = append(cands, k.LineComment)
	}
	for _, l := range []int{first, last} {
		if l < 1 || l > len(ed.lines) {
			continue
		}
		for _, c := range cands {
			if cm, col, ok := trailingComment(ed.lines[l-1].text, c); ok {
				return cm, col
			}
		}
	}
	return "", 0
}

// trailingComment reports whether line t ends with comment c (a line
// comment as yaml.v3 reads it: from "#" to the end of the line) after a
// blank, and returns c without trailing blanks and the rune column where
// it starts when two spaces or more separate it from the text before it
// (an aligned comment), else 0. The column is a count of runes, as an
// editor shows a line without tabs.
func trailingComment(t, c string) (string, int, bool) {
	if !strings.HasPrefix(c, "#") || strings.ContainsAny(c, "\r\n") || !strings.HasSuffix(t, c) {
		return "", 0, false
	}
	before := t[:len(t)-len(c)]
	text := strings.TrimRight(before, " \t")
	gap := before[len(text):]
	if gap == "" || text == "" {
		return "", 0, false
	}
	col := 0
	if len(gap) > 1 && strings.Trim(gap, " ") == "" {
		col = utf8.RuneCountInString(before)
	}
	return strings.TrimRight(c, " \t"), col, true
}

// insert adds the missing key path[0] (with any missing parents of the
// value) to block mapping m, after the last present key of op.After or at
// the end.
func (ed *editor) insert(m *yaml.Node, path []string, op Op, nv *yaml.Node) error {
	v := cloneNode(nv)
	if op.Action == Append {
		v = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{v}}
	}
	v, err := nest(path[1:], v)
	if err != nil {
		return err
	}
	pair := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{newKey(path[0]), v}}
	markLeaf(pair, path, op.Action, lineComment(op.Comment))
	at := insertAt(m, op.After)
	after := ed.extendedEnd(entry{m, at - 2})
	ls, err := ed.mapLines(pair, m.Content[0].Column-1)
	if err != nil {
		return err
	}
	return ed.splice(after+1, after, ls)
}

// appendItem adds nv at the end of block sequence s.
func (ed *editor) appendItem(s, nv *yaml.Node, cm string) error {
	if len(s.Content) == 0 {
		return errors.New("empty block sequence")
	}
	item := cloneNode(nv)
	if cm != "" {
		item.LineComment = cm
	}
	after := ed.extendedEnd(entry{s, len(s.Content) - 1})
	ls, err := ed.seqLines(&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{item}}, s.Column-1)
	if err != nil {
		return err
	}
	return ed.splice(after+1, after, ls)
}

// delete removes entry e of its parent (whose own entry is pe): the key or
// item, its whole value, the comment lines right above it at its
// indentation, and commented-out lines right below it indented deeper. The
// blank lines below it go too when a blank line (or the start of its
// mapping or sequence) is above it, so no double gap is left. Deleting the
// last entry leaves an empty {} or [].
func (ed *editor) delete(pe, e entry) error {
	p := e.parent
	n, step := len(p.Content), 1
	if p.Kind == yaml.MappingNode {
		n, step = n/2, 2
	}
	if n == 1 {
		empty := &yaml.Node{Kind: p.Kind, Tag: "!!map", Style: yaml.FlowStyle, Anchor: p.Anchor}
		if p.Kind == yaml.SequenceNode {
			empty.Tag = "!!seq"
		}
		return ed.replace(pe, empty, "")
	}
	st := ed.start(e)
	end := ed.extendedEnd(e)
	t := ed.lines[st.line-1].text
	prefix := t[:byteCol(t, st.col)]
	if !isBlank(prefix) {
		// The entry shares its line with a "- ": move the next entry up.
		if e.i+step >= len(p.Content) {
			return errors.New("cannot delete the entry sharing a line with its \"-\"")
		}
		nx := ed.start(entry{p, e.i + step})
		if nx.line <= end || nx.line > len(ed.lines) {
			return errors.New("cannot delete an entry sharing a line with the next")
		}
		var repl []string
		for l := end + 1; l < nx.line; l++ {
			repl = append(repl, ed.lines[l-1].text)
		}
		nt := ed.lines[nx.line-1].text
		repl = append(repl, prefix+nt[byteCol(nt, nx.col):])
		return ed.splice(st.line, nx.line, repl)
	}
	s := st.line
	for s > 1 && isComment(ed.lines[s-2].text) && indentOf(ed.lines[s-2].text) == st.col-1 {
		s--
	}
	if s == 1 || isBlank(ed.lines[s-2].text) || e.i == 0 {
		// A blank line above (or none: the first entry) already
		// separates; the blank lines below would double it.
		for end < ed.body && isBlank(ed.lines[end].text) {
			end++
		}
	}
	return ed.splice(s, end, nil)
}
