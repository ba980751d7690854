package edit

import (
	"errors"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// apply performs one op on the editor's document: it computes the intended
// data first (semApply), makes the text edit, and checks that the edited
// text parses to exactly that data.
func (ed *editor) apply(op Op) error {
	switch op.Action {
	case Set, Append, Delete:
	default:
		return fmt.Errorf("unknown action %q", op.Action)
	}
	if len(op.Path) == 0 && op.Action != Append {
		return errors.New("empty path")
	}
	var nv *yaml.Node
	if op.Action != Delete {
		var err error
		if nv, err = parseValue(op.Value); err != nil {
			return err
		}
	}
	if err := ed.parse(); err != nil {
		return err
	}
	want, err := semApply(cloneNode(ed.root), op.Path, op, nv)
	if err != nil {
		return err
	}
	if sameData(want, ed.root) {
		return nil // nothing to change: leave every byte alone
	}
	saved := ed.lines
	err = ed.editChecked(op, nv, want)
	if err != nil && nv != nil && hasBlockScalar(nv) {
		// A block scalar can swallow comment lines that follow it; try
		// again writing multi-line text double-quoted.
		ed.lines, ed.quoteBlocks = saved, true
		if ed.parse() == nil && ed.editChecked(op, nv, want) == nil {
			err = nil
		}
		ed.quoteBlocks = false
	}
	return err
}

// editChecked makes the text edit and checks the result holds want.
func (ed *editor) editChecked(op Op, nv, want *yaml.Node) error {
	if err := ed.edit(op, nv); err != nil {
		return err
	}
	err := ed.parse()
	if n := len(ed.lines); (err != nil || !sameData(want, ed.root)) && n > 0 && ed.lines[n-1].eol == "" {
		// New text at the end of a file without a final newline may need
		// one (a block scalar's last line break); give it one.
		ed.lines[n-1].eol = ed.eol
		err = ed.parse()
	}
	if err != nil && strings.Contains(err.Error(), "unknown anchor") {
		return fmt.Errorf("it would remove an anchor that an alias uses (%v)", err)
	}
	if err != nil {
		return fmt.Errorf("the edited text does not parse (%v)", err)
	}
	if !sameData(want, ed.root) {
		return errors.New("the edited text does not hold the intended data")
	}
	return nil
}

// hasBlockScalar reports whether n holds a literal or folded scalar.
func hasBlockScalar(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return true
	}
	for _, c := range n.Content {
		if hasBlockScalar(c) {
			return true
		}
	}
	return false
}

// parseValue parses an Op's Value text.
func parseValue(v string) (*yaml.Node, error) {
	if strings.TrimSpace(v) == "" {
		return nil, errors.New("empty value")
	}
	dec := yaml.NewDecoder(strings.NewReader(v))
	var d, extra yaml.Node
	if err := decode(dec, &d); err != nil {
		return nil, fmt.Errorf("parsing the value: %w", err)
	}
	if err := decode(dec, &extra); err != io.EOF {
		return nil, errors.New("parsing the value: more than one document")
	}
	if d.Kind != yaml.DocumentNode || len(d.Content) != 1 {
		return nil, errors.New("the value is not one YAML node")
	}
	return d.Content[0], nil
}

// lineComment turns an Op's Comment into a "# ..." line comment.
func lineComment(c string) string {
	c = strings.Join(strings.Fields(c), " ")
	if c == "" {
		return ""
	}
	return "# " + c
}

// edit walks op.Path through the parsed document and makes the text edit.
// semApply has already vetted the path, so the walk only has to find where.
func (ed *editor) edit(op Op, nv *yaml.Node) error {
	cur := entry{}
	val := ed.root
	for i, el := range op.Path {
		if val.Kind == yaml.AliasNode {
			return errAlias
		}
		if isFlow(val) || (isNull(val) && op.Action != Delete) {
			return ed.rewrite(cur, val, op.Path[i:], op, nv)
		}
		var e entry
		switch val.Kind {
		case yaml.MappingNode:
			k := findKey(val, el)
			if k < 0 {
				if op.Action == Delete {
					return nil
				}
				return ed.insert(val, op.Path[i:], op, nv)
			}
			e = entry{val, k}
		case yaml.SequenceNode:
			idx, ok := index(el)
			if !ok || idx >= len(val.Content) {
				return fmt.Errorf("no item %q", el)
			}
			e = entry{val, idx}
		default:
			return fmt.Errorf("%q is inside a scalar", el)
		}
		if i == len(op.Path)-1 && op.Action != Append {
			if op.Action == Delete {
				return ed.delete(cur, e)
			}
			return ed.replace(e, cloneNode(nv), lineComment(op.Comment))
		}
		cur, val = e, e.value(ed.root)
	}
	// Only Append gets here, at the sequence itself.
	switch {
	case val.Kind == yaml.AliasNode:
		return errAlias
	case isFlow(val) || isNull(val):
		return ed.rewrite(cur, val, nil, op, nv)
	case val.Kind == yaml.SequenceNode:
		return ed.appendItem(val, nv, lineComment(op.Comment))
	}
	return errors.New("not a sequence")
}

// rewrite replaces a whole flow collection or null value (at entry e) with
// its new content: flow stays flow unless it was empty, null becomes block.
func (ed *editor) rewrite(e entry, val *yaml.Node, rest []string, op Op, nv *yaml.Node) error {
	c, err := semApply(cloneNode(val), rest, op, nv)
	if err != nil {
		return err
	}
	if sameData(c, val) {
		return nil
	}
	c.Anchor = val.Anchor // the same node, changed: aliases still point at it
	cm := lineComment(op.Comment)
	if isFlow(val) && len(val.Content) > 0 {
		c.Style |= yaml.FlowStyle
	} else {
		c.Style &^= yaml.FlowStyle
		markLeaf(c, rest, op.Action, cm)
		cm = ""
	}
	return ed.replace(e, c, cm)
}

// markLeaf puts comment cm on the key or item that op changed in n.
func markLeaf(n *yaml.Node, path []string, action Action, cm string) {
	if cm == "" {
		return
	}
	for i, el := range path {
		last := i == len(path)-1 && action == Set
		switch n.Kind {
		case yaml.MappingNode:
			k := findKey(n, el)
			if k < 0 {
				return
			}
			if last {
				n.Content[k].LineComment = cm
				return
			}
			n = n.Content[k+1]
		case yaml.SequenceNode:
			idx, ok := index(el)
			if !ok || idx >= len(n.Content) {
				return
			}
			if last {
				n.Content[idx].LineComment = cm
				return
			}
			n = n.Content[idx]
		default:
			return
		}
	}
	if action == Append && n.Kind == yaml.SequenceNode && len(n.Content) > 0 {
		n.Content[len(n.Content)-1].LineComment = cm
	}
}

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
// line comment; a comment on the key line above a block value stays unless
// cm replaces it.
func (ed *editor) replace(e entry, nv *yaml.Node, cm string) error {
	if e.parent == nil {
		return ed.replaceRoot(nv)
	}
	st := ed.start(e)
	if st.line < 1 || st.line > len(ed.lines) {
		return errors.New("entry outside the document")
	}
	end := ed.contentEnd(e)
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
// indentation, and commented-out lines right below it indented deeper. When
// it leaves two blank runs touching, the second goes. Deleting the last
// entry leaves an empty {} or [].
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
	if s > 1 && isBlank(ed.lines[s-2].text) {
		for end < ed.body && isBlank(ed.lines[end].text) {
			end++
		}
	}
	return ed.splice(s, end, nil)
}
