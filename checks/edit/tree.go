package edit

import (
	"fmt"
	"slices"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// cloneNode deep-copies n (alias targets are shared, not copied).
func cloneNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, ch := range n.Content {
			c.Content[i] = cloneNode(ch)
		}
	}
	return &c
}

// sameData reports whether a and b hold the same data: kinds, resolved tags,
// scalar values and children in order. Style, comments and positions do not
// count.
func sameData(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.ShortTag() != b.ShortTag() {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		return a.ShortTag() == "!!null" || a.Value == b.Value
	case yaml.AliasNode:
		return a.Value == b.Value
	}
	if len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !sameData(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func isFlow(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle != 0
}

func newMap() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func newKey(k string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k} }

// findKey returns the index in m.Content of the key named k, or -1.
func findKey(m *yaml.Node, k string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if key := m.Content[i]; key.Kind == yaml.ScalarNode && key.Value == k {
			return i
		}
	}
	return -1
}

// insertAt returns the index in m.Content where a new pair goes: right after
// the pair of the present key of after that comes last in m, else at the end.
func insertAt(m *yaml.Node, after []string) int {
	at := len(m.Content)
	best := -1
	for _, k := range after {
		if i := findKey(m, k); i > best {
			best = i
		}
	}
	if best >= 0 {
		at = best + 2
	}
	return at
}

// index parses a sequence index path element.
func index(el string) (int, bool) {
	if el == "" || len(el) > 9 {
		return 0, false
	}
	for _, c := range el {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(el)
	return i, err == nil
}

// nest wraps v in new mappings, one per element of keys (outermost first).
// It refuses decimal elements: they would be sequence indexes.
func nest(keys []string, v *yaml.Node) (*yaml.Node, error) {
	for i := len(keys) - 1; i >= 0; i-- {
		if _, ok := index(keys[i]); ok {
			return nil, fmt.Errorf("path goes through a missing sequence index %q", keys[i])
		}
		m := newMap()
		m.Content = []*yaml.Node{newKey(keys[i]), v}
		v = m
	}
	return v, nil
}

// pathCopy returns a copy of the tree n that semApply may change for
// path: the nodes path goes through (as far as it resolves) are copied,
// each with its own Content slice; every other node is n's, shared. semApply
// changes only those nodes, so n stays as it was at the cost of a copy of
// the path, not of the whole tree.
func pathCopy(n *yaml.Node, path []string) *yaml.Node {
	c := *n
	c.Content = slices.Clone(n.Content)
	if len(path) == 0 {
		return &c
	}
	next := -1
	switch n.Kind {
	case yaml.MappingNode:
		if i := findKey(&c, path[0]); i >= 0 {
			next = i + 1
		}
	case yaml.SequenceNode:
		if i, ok := index(path[0]); ok && i < len(c.Content) {
			next = i
		}
	}
	if next >= 0 {
		c.Content[next] = pathCopy(c.Content[next], path[1:])
	}
	return &c
}

// semApply applies op (with value nv, already parsed) to the tree n in place,
// the way the text edit must: it is the reference the text result is checked
// against, and it computes the new content of collections that are rewritten
// whole. It returns the possibly replaced root.
func semApply(n *yaml.Node, path []string, op Op, nv *yaml.Node) (*yaml.Node, error) {
	if len(path) == 0 {
		if op.Action != Append {
			return n, fmt.Errorf("empty path")
		}
		switch {
		case n.Kind == yaml.SequenceNode:
			n.Content = append(n.Content, cloneNode(nv))
			return n, nil
		case isNull(n):
			return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{cloneNode(nv)}}, nil
		case n.Kind == yaml.AliasNode:
			return n, fmt.Errorf("alias on the path")
		}
		return n, fmt.Errorf("not a sequence")
	}
	el, rest := path[0], path[1:]
	switch n.Kind {
	case yaml.AliasNode:
		return n, fmt.Errorf("alias on the path")
	case yaml.ScalarNode:
		if op.Action == Delete {
			return n, nil
		}
		if !isNull(n) {
			return n, fmt.Errorf("%q is inside a scalar", el)
		}
		m := newMap()
		return semApply(m, path, op, nv)
	case yaml.MappingNode:
		i := findKey(n, el)
		if i < 0 {
			if op.Action == Delete {
				return n, nil
			}
			v := nv
			if op.Action == Append {
				v = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{nv}}
			}
			v, err := nest(rest, cloneNode(v))
			if err != nil {
				return n, err
			}
			at := insertAt(n, op.After)
			n.Content = append(n.Content[:at], append([]*yaml.Node{newKey(el), v}, n.Content[at:]...)...)
			return n, nil
		}
		if len(rest) == 0 {
			switch op.Action {
			case Delete:
				n.Content = append(n.Content[:i], n.Content[i+2:]...)
				return n, nil
			case Set:
				if !sameData(n.Content[i+1], nv) {
					n.Content[i+1] = cloneNode(nv)
				}
				return n, nil
			}
		}
		c, err := semApply(n.Content[i+1], rest, op, nv)
		n.Content[i+1] = c
		return n, err
	case yaml.SequenceNode:
		i, ok := index(el)
		if !ok {
			return n, fmt.Errorf("%q is not a sequence index", el)
		}
		if i >= len(n.Content) {
			if op.Action == Delete {
				return n, nil
			}
			return n, fmt.Errorf("index %d out of range (the sequence has %d items)", i, len(n.Content))
		}
		if len(rest) == 0 {
			switch op.Action {
			case Delete:
				n.Content = append(n.Content[:i], n.Content[i+1:]...)
				return n, nil
			case Set:
				if !sameData(n.Content[i], nv) {
					n.Content[i] = cloneNode(nv)
				}
				return n, nil
			}
		}
		c, err := semApply(n.Content[i], rest, op, nv)
		n.Content[i] = c
		return n, err
	}
	return n, fmt.Errorf("unexpected node kind %d", n.Kind)
}
