package manifest

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Positions read from a packed tree. Every finding asks where its path is
// (Pos, BlockEnd), and most objects with findings have no other reason to
// inflate their tree: answering from the packed arrays saves that
// allocation. Each function here mirrors its yaml.Node counterpart in
// object.go on the tree inflate would build, so the answers are the same.

// packedView returns o's packed tree while no inflated copy exists (once
// one does, reads use it, as they always have).
func (o *Object) packedView() *packedTree {
	if o.root != nil || o.packed == nil || len(o.packed.nodes) == 0 {
		return nil
	}
	if o.packed.inflated.held.Load() != nil || o.packed.inflated.kept.Load() != nil {
		return nil
	}
	return o.packed
}

// skip returns the index just past node i's subtree.
func (t *packedTree) skip(i int) int {
	for pending := 1; pending > 0; i++ {
		pending += t.nodes[i].children() - 1
	}
	return i
}

// item returns the index of the idx-th child of node n.
func (t *packedTree) item(n, idx int) int {
	c := n + 1
	for ; idx > 0; idx-- {
		c = t.skip(c)
	}
	return c
}

// mapEntry is MapEntry: the key and value indexes of key in mapping m, or
// -1s.
func (t *packedTree) mapEntry(m int, key string) (k, v int) {
	if t.nodes[m].kind() != yaml.MappingNode {
		return -1, -1
	}
	children := t.nodes[m].children()
	c := m + 1
	for j := 0; j+1 < children; j += 2 {
		val := t.skip(c)
		if t.str(t.nodes[c].value()) == key {
			return c, val
		}
		c = t.skip(val)
	}
	return -1, -1
}

// walk is Object.walk: the last node reached along path, the key node that
// led to it (-1 for sequence items and the root), and how many elements
// were followed.
func (t *packedTree) walk(path []string) (node, key, depth int) {
	node, key = 0, -1
	for i, e := range path {
		for t.nodes[node].kind() == yaml.AliasNode && t.alias(node) >= 0 {
			node = t.alias(node)
		}
		switch t.nodes[node].kind() {
		case yaml.MappingNode:
			k, v := t.mapEntry(node, e)
			if v < 0 {
				return node, key, i
			}
			node, key = v, k
		case yaml.SequenceNode:
			idx, ok := seqIndex(e, t.nodes[node].children())
			if !ok {
				return node, key, i
			}
			node, key = t.item(node, idx), -1
		default:
			return node, key, i
		}
	}
	return node, key, len(path)
}

// kindPos is Object.KindPos.
func (t *packedTree) kindPos() (line, col int) {
	if k, _ := t.mapEntry(0, "kind"); k >= 0 {
		return int(t.nodes[k].line), int(t.nodes[k].col)
	}
	return int(t.nodes[0].line), int(t.nodes[0].col)
}

// pos is Object.Pos.
func (t *packedTree) pos(path []string) (line, col int, exact bool) {
	n, key, depth := t.walk(path)
	exact = depth == len(path)
	switch {
	case depth == 0:
		line, col = t.kindPos()
	case key >= 0:
		line, col = int(t.nodes[key].line), int(t.nodes[key].col)
	default:
		line, col = int(t.nodes[n].line), int(t.nodes[n].col)
	}
	return line, col, exact
}

// blockEnd is Object.BlockEnd.
func (t *packedTree) blockEnd(path []string) int {
	n, _, depth := t.walk(path)
	if depth != len(path) {
		return 0
	}
	return t.lastLine(n)
}

// lastLine is lastLine: the last line of node i's subtree, following the
// last child down.
func (t *packedTree) lastLine(i int) int {
	end := 0
	for {
		pn := &t.nodes[i]
		if l := int(pn.line); l > end {
			end = l
		}
		style := pn.style()
		if pn.kind() == yaml.ScalarNode && (style == yaml.LiteralStyle || style == yaml.FoldedStyle) {
			if l := int(pn.line) + strings.Count(strings.TrimRight(t.str(pn.value()), "\n"), "\n") + 1; l > end {
				end = l
			}
		}
		children := pn.children()
		if children == 0 {
			return end
		}
		i = t.item(i, children-1)
	}
}

// scalar is Object.Scalar: the value of the scalar at path.
func (t *packedTree) scalar(path []string) (string, bool) {
	n, _, depth := t.walk(path)
	if depth != len(path) || t.nodes[n].kind() != yaml.ScalarNode {
		return "", false
	}
	return t.str(t.nodes[n].value()), true
}

// anchor returns node i's anchor.
func (t *packedTree) anchor(i int) string {
	if x := t.extra(i); x != nil {
		return t.str(x.anchor)
	}
	return ""
}

// crossesAlias is Object.PathCrossesAlias.
func (t *packedTree) crossesAlias(path []string) bool {
	n := 0
	for _, e := range path {
		if n < 0 {
			break
		}
		kind := t.nodes[n].kind()
		if kind == yaml.AliasNode || t.anchor(n) != "" {
			return true
		}
		switch kind {
		case yaml.MappingNode:
			if k, _ := t.mapEntry(n, "<<"); k >= 0 {
				return true
			}
			_, n = t.mapEntry(n, e)
		case yaml.SequenceNode:
			if idx, ok := seqIndex(e, t.nodes[n].children()); ok {
				n = t.item(n, idx)
			} else {
				n = -1
			}
		default:
			n = -1
		}
	}
	return n >= 0 && (t.nodes[n].kind() == yaml.AliasNode || t.anchor(n) != "")
}

// blockCopy is blockCopy (Object.BlockCopy) for node i.
func (t *packedTree) blockCopy(i int) *yaml.Node {
	for depth := 0; t.nodes[i].kind() == yaml.AliasNode && t.alias(i) >= 0 && depth < 32; depth++ {
		i = t.alias(i)
	}
	pn := &t.nodes[i]
	if pn.kind() == yaml.AliasNode {
		return nil
	}
	c := &yaml.Node{Kind: pn.kind(), Style: pn.style() &^ yaml.FlowStyle, Tag: t.tag(pn.tag()), Value: t.str(pn.value())}
	for k, ch := 0, i+1; k < pn.children(); k, ch = k+1, t.skip(ch) {
		if cc := t.blockCopy(ch); cc != nil {
			c.Content = append(c.Content, cc)
		}
	}
	return c
}
