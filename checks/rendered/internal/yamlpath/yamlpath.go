// Package yamlpath reads YAML trees the way fixes of charts and overlays
// are translated: the documents of a file, the node at each step of an
// edit's path, the one key on a line whose value is what a template
// rendered, a node's plain value, the line nearest a path. It imports only
// the YAML parser, so its fuzz target instruments a few dozen packages
// rather than checks/rendered's 900.
package yamlpath

import (
	"bytes"
	"io"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Segment is one step of a key path: a mapping key (Index < 0), or a
// sequence index when Key is "" and Index >= 0.
type Segment struct {
	Key   string
	Index int
}

// ParseDocs returns the root nodes of the documents of data (nil for an
// empty one), at most most of them; nil when data does not parse.
func ParseDocs(data []byte, most int) []*yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*yaml.Node
	for len(out) < most {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == io.EOF {
			return out
		}
		if err != nil {
			return nil
		}
		var root *yaml.Node
		if n.Kind == yaml.DocumentNode && len(n.Content) > 0 && n.Content[0].Kind != yaml.ScalarNode {
			root = n.Content[0]
		}
		out = append(out, root)
	}
	return out
}

// ParseDoc returns the root node of the first document of data, nil when
// it does not parse or is empty.
func ParseDoc(data []byte) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// Walk reads an edit's path (keys, and decimal indexes into sequences)
// against the rendered document: its segments, and the node at each prefix
// (nodes[i] is the node at segs[:i]; nil past what exists).
func Walk(root *yaml.Node, p []string) ([]Segment, []*yaml.Node) {
	segs := make([]Segment, 0, len(p))
	nodes := make([]*yaml.Node, 0, len(p)+1)
	n := root
	nodes = append(nodes, n)
	for _, k := range p {
		var next *yaml.Node
		if n != nil && n.Kind == yaml.SequenceNode {
			if i, err := strconv.Atoi(k); err == nil && i >= 0 {
				segs = append(segs, Segment{Index: i})
				if i < len(n.Content) {
					next = n.Content[i]
				}
				n = next
				nodes = append(nodes, n)
				continue
			}
		}
		segs = append(segs, Segment{Key: k, Index: -1})
		if n != nil && n.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == k {
					next = n.Content[j+1]
					break
				}
			}
		}
		n = next
		nodes = append(nodes, n)
	}
	return segs, nodes
}

// Held returns how many leading segments of a path the document holds,
// given the nodes Walk returned for it: the index of the first segment it
// lacks, or the number of segments when it holds them all.
func Held(nodes []*yaml.Node) int {
	n := 0
	for n+1 < len(nodes) && nodes[n+1] != nil {
		n++
	}
	return n
}

// KeyAt returns the path of the one key on line of the values tree whose
// value equals rendered (what the template emits for it); false when no
// key there, or more than one, does.
func KeyAt(values *yaml.Node, line int, rendered *yaml.Node) ([]string, bool) {
	want, ok := Plain(rendered)
	if !ok {
		return nil, false
	}
	var found []string
	count := 0
	var walk func(n *yaml.Node, p []string, depth int)
	walk = func(n *yaml.Node, p []string, depth int) {
		if n == nil || depth > 100 || count > 1 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				k, v := n.Content[j], n.Content[j+1]
				kp := append(append([]string(nil), p...), k.Value)
				if k.Line == line {
					if got, ok := Plain(v); ok && reflect.DeepEqual(got, want) {
						found = kp
						count++
					}
				}
				walk(v, kp, depth+1)
			}
		case yaml.SequenceNode:
			for j, it := range n.Content {
				walk(it, append(append([]string(nil), p...), strconv.Itoa(j)), depth+1)
			}
		}
	}
	walk(values, nil, 0)
	return found, count == 1
}

// Plain decodes a node with every scalar as its text, so that a value and
// its quoted rendering compare equal; an alias is decoded as the node it
// names (`port: *portName`, rendered `port: http`). False for a node with
// a tag of its own, which is not compared, a merge key (`<<: *base`,
// whose entries the rendering holds merged), aliases nested deeper than
// maxAliasDepth, or more than maxPlainNodes nodes read (aliases of
// aliases of lists multiply: a values file is the pull request's).
func Plain(n *yaml.Node) (any, bool) {
	budget := maxPlainNodes
	return plain(n, 0, &budget)
}

// maxAliasDepth bounds the aliases Plain follows one through another, so
// that an alias of a node that holds it ends; maxPlainNodes bounds the
// nodes it reads in all.
const (
	maxAliasDepth = 8
	maxPlainNodes = 1 << 16
)

func plain(n *yaml.Node, aliases int, budget *int) (any, bool) {
	if *budget--; *budget < 0 {
		return nil, false
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil || aliases >= maxAliasDepth {
			return nil, false
		}
		return plain(n.Alias, aliases+1, budget)
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, true
		}
		return n.Value, true
	case yaml.MappingNode:
		m := map[string]any{}
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Tag == "!!merge" {
				return nil, false
			}
			v, ok := plain(n.Content[j+1], aliases, budget)
			if !ok {
				return nil, false
			}
			m[n.Content[j].Value] = v
		}
		return m, true
	case yaml.SequenceNode:
		s := []any{}
		for _, it := range n.Content {
			v, ok := plain(it, aliases, budget)
			if !ok {
				return nil, false
			}
			s = append(s, v)
		}
		return s, true
	}
	return nil, false
}

// NearestLine returns the line of the deepest key of p that the values
// tree has (the first line when it has none).
func NearestLine(values *yaml.Node, p []string) int {
	line := 1
	n := values
	for _, k := range p {
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == k {
					line, next = n.Content[j].Line, n.Content[j+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(n.Content) {
				line, next = n.Content[i].Line, n.Content[i]
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return max(line, 1)
}
