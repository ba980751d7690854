package edit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// This file renders new nodes as block YAML in the document's own layout.
// Scalars and flow collections are written by yaml.v3 (keeping the style
// they were given); block mappings and sequences are laid out here.

func spaces(n int) string { return strings.Repeat(" ", max(n, 0)) }

// stripComments returns a copy of n without comments, recursively.
func stripComments(n *yaml.Node) *yaml.Node {
	c := cloneNode(n)
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		n.HeadComment, n.LineComment, n.FootComment = "", "", ""
		for _, ch := range n.Content {
			walk(ch)
		}
	}
	walk(c)
	return c
}

// isInline reports whether n is written on the line of its key or "-".
func isInline(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		return isFlow(n) || len(n.Content) == 0
	}
	return true
}

// inlineText renders a scalar, alias or flow/empty collection. The first
// line goes after "key: " or "- "; further lines (block scalars, long
// quoted text) come back with their common indentation removed.
func (ed *editor) inlineText(n *yaml.Node) ([]string, error) {
	if n.Kind == yaml.AliasNode {
		return []string{"*" + n.Value}, nil
	}
	c := stripComments(n)
	if ed.quoteBlocks && c.Kind == yaml.ScalarNode && c.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		c.Style = yaml.DoubleQuotedStyle
	}
	if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
		c.Style |= yaml.FlowStyle
	}
	ls, err := marshalLines(c)
	if err != nil {
		return nil, err
	}
	if f := strings.Fields(ls[0]); c.Kind == yaml.ScalarNode && len(ls) > 1 && len(f) > 0 &&
		strings.ContainsAny(f[len(f)-1][:1], "|>") && strings.ContainsAny(f[len(f)-1], "123456789") {
		// An explicit indentation indicator counts from the indentation
		// yaml.v3 wrote; write the text double-quoted instead.
		c.Style = yaml.DoubleQuotedStyle
		if ls, err = marshalLines(c); err != nil {
			return nil, err
		}
	}
	if len(ls) > 1 {
		common := -1
		for _, l := range ls[1:] {
			if isBlank(l) {
				continue
			}
			if i := indentOf(l); common < 0 || i < common {
				common = i
			}
		}
		for i := 1; i < len(ls); i++ {
			if len(ls[i]) >= common && common > 0 {
				ls[i] = ls[i][common:]
			}
		}
	}
	return ls, nil
}

func marshalLines(n *yaml.Node) (ls []string, err error) {
	defer func() {
		if r := recover(); r != nil { // yaml.v3 panics on some malformed nodes
			err = fmt.Errorf("cannot write the value: %v", r)
		}
	}()
	b, err := yaml.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("cannot write the value: %w", err)
	}
	s := strings.TrimSuffix(string(b), "\n")
	return strings.Split(s, "\n"), nil
}

// withComment returns line s with comment cm (if any) at its end: at rune
// column col when s is short enough to leave a blank before it there (an
// aligned comment stays aligned), else after one space.
func withComment(s, cm string, col int) string {
	if cm == "" {
		return s
	}
	if pad := col - utf8.RuneCountInString(s); pad >= 1 {
		return s + spaces(pad) + cm
	}
	return s + " " + cm
}

// valueLines writes head (the text up to and including ":" or "-") followed
// by value v. ind is the indentation of the key or "-" that head ends with;
// item says head ends with "-". cm is a comment for the head line, at rune
// column col when it fits there (0: after one space).
func (ed *editor) valueLines(head string, ind int, item bool, v *yaml.Node, cm string, col int) ([]string, error) {
	child := ind + ed.st.indent
	seqChild := ind + ed.st.seqIndent
	if item {
		child = ind + ed.st.itemIndent
		seqChild = child
	}
	if isInline(v) {
		ls, err := ed.inlineText(v)
		if err != nil {
			return nil, err
		}
		out := []string{withComment(head+" "+ls[0], cm, col)}
		for _, l := range ls[1:] {
			if l == "" {
				out = append(out, "")
				continue
			}
			out = append(out, spaces(child)+l)
		}
		return out, nil
	}
	props := ""
	if v.Anchor != "" {
		props = " &" + v.Anchor
	}
	var body []string
	var err error
	if v.Kind == yaml.MappingNode {
		body, err = ed.mapLines(v, child)
	} else {
		body, err = ed.seqLines(v, seqChild)
	}
	if err != nil {
		return nil, err
	}
	if item && props == "" && len(body) > 0 {
		// The first line of the item's content shares the "-" line.
		first := head + spaces(ed.st.itemIndent-1) + body[0][min(child, len(body[0])):]
		return append([]string{withComment(first, cm, col)}, body[1:]...), nil
	}
	return append([]string{withComment(head+props, cm, col)}, body...), nil
}

// commentLines turns a yaml.v3 head or foot comment into lines at ind.
func commentLines(c string, ind int) []string {
	if c == "" {
		return nil
	}
	var out []string
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			out = append(out, "")
			continue
		}
		if !strings.HasPrefix(l, "#") {
			l = "# " + l
		}
		out = append(out, spaces(ind)+l)
	}
	return out
}

// mapLines writes a block mapping whose keys sit at indentation ind.
func (ed *editor) mapLines(m *yaml.Node, ind int) ([]string, error) {
	var out []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode && k.Kind != yaml.AliasNode {
			return nil, fmt.Errorf("cannot write a complex mapping key")
		}
		kt, err := ed.inlineText(k)
		if err != nil {
			return nil, err
		}
		if len(kt) != 1 {
			return nil, fmt.Errorf("cannot write a multi-line mapping key")
		}
		out = append(out, commentLines(k.HeadComment, ind)...)
		cm := k.LineComment
		if cm == "" && isInline(v) {
			cm = v.LineComment
		}
		ls, err := ed.valueLines(spaces(ind)+kt[0]+":", ind, false, v, cm, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
		out = append(out, commentLines(k.FootComment, ind)...)
	}
	return out, nil
}

// seqLines writes a block sequence whose "-" sit at indentation ind.
func (ed *editor) seqLines(s *yaml.Node, ind int) ([]string, error) {
	var out []string
	for _, it := range s.Content {
		out = append(out, commentLines(it.HeadComment, ind)...)
		ls, err := ed.valueLines(spaces(ind)+"-", ind, true, it, it.LineComment, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

// nodeLines writes a node at the root of a document.
func (ed *editor) nodeLines(n *yaml.Node) ([]string, error) {
	if isInline(n) {
		return ed.inlineText(n)
	}
	if n.Kind == yaml.MappingNode {
		return ed.mapLines(n, 0)
	}
	return ed.seqLines(n, 0)
}
