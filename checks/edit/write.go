package edit

import (
	"errors"
	"fmt"
	"strings"

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
// an item of a block sequence, or the root). The old value goes with its
// line comment and the comment lines indented under it; a comment on the key line above a block value stays unless
// cm replaces it.
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
	v := e.value(ed.root)
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
	if rest := strings.TrimSpace(t[len(head):]); cm == "" && v.Line > st.line && isComment(rest) {
		cm = rest
	}
	ls, err := ed.valueLines(head, ind, item, nv, cm)
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
	return ed.splice(r.Line, end, ls)
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
