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
	if !ed.parsed {
		if err := ed.parse(); err != nil {
			return err
		}
		// Only the lines as given come here: after an edit, its check
		// parses the edited lines (or the op fails).
		ed.parsed, ed.parsedOnce = true, true
	}
	want, err := semApply(pathCopy(ed.root, op.Path), op.Path, op, nv)
	if err != nil {
		return err
	}
	if sameData(want, ed.root) {
		return nil // nothing to change: leave every byte alone
	}
	saved := ed.lines
	ed.parsed = false // until editChecked has parsed the edited text
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
	ed.parsed = true // the next op starts from this parse
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
