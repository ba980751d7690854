package render

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// entry is one node of a rendered document with its path and positions.
type entry struct {
	path     []seg
	key      *yaml.Node // mapping key, or the item itself in a sequence
	value    *yaml.Node
	parent   *entry
	children []*entry
}

// walk lists the entries of a document's root node, parents before children.
func walk(root *yaml.Node) []*entry {
	top := &entry{key: root, value: root}
	out := []*entry{top}
	var rec func(e *entry)
	rec = func(e *entry) {
		v := e.value
		for v != nil && v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		if v == nil {
			return
		}
		switch v.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(v.Content); i += 2 {
				k := v.Content[i]
				c := &entry{path: appendSeg(e.path, seg{Key: k.Value, Index: -1}), key: k, value: v.Content[i+1], parent: e}
				e.children = append(e.children, c)
				out = append(out, c)
				rec(c)
			}
		case yaml.SequenceNode:
			for i, item := range v.Content {
				c := &entry{path: appendSeg(e.path, seg{Index: i}), key: item, value: item, parent: e}
				e.children = append(e.children, c)
				out = append(out, c)
				rec(c)
			}
		}
	}
	if len(out) > 0 && (root.Kind == yaml.MappingNode || root.Kind == yaml.SequenceNode) {
		rec(top)
	}
	return out
}

func appendSeg(p []seg, s seg) []seg {
	out := make([]seg, len(p)+1)
	copy(out, p)
	out[len(p)] = s
	return out
}

// lookupLine walks path p in a YAML tree and returns the line and column of
// the deepest key (or item) reached and how many segments matched.
// Sequences are walked by index.
func lookupLine(root *yaml.Node, p []seg) (line, col, matched int) {
	n := root
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n == nil {
		return 0, 0, 0
	}
	line, col = n.Line, n.Column
	for i, s := range p {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		switch {
		case s.Index < 0 && n.Kind == yaml.MappingNode:
			found := false
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == s.Key {
					line, col, n, found = n.Content[j].Line, n.Content[j].Column, n.Content[j+1], true
					break
				}
			}
			if !found {
				return line, col, i
			}
		case s.Index >= 0 && n.Kind == yaml.SequenceNode && s.Index < len(n.Content):
			n = n.Content[s.Index]
			line, col = n.Line, n.Column
		default:
			return line, col, i
		}
	}
	return line, col, len(p)
}

func parseYAML(data []byte) (*yaml.Node, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("parsing YAML: %w", err)
	}
	return &n, nil
}
