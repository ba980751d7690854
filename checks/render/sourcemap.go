package render

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// docMap holds the known origins of one document's key paths, most specific
// first, keyed by formatted path ("" is the document itself).
type docMap map[string][]Location

// Locate returns the place an author edits to change the key at path in
// document doc (an index into r.Documents). path is a dotted key path with
// [i] sequence indexes, e.g. spec.template.spec.containers[0].readinessProbe;
// keys holding dots are written ["helm.sh/hook"]. A path with no location of
// its own (a key emitted by toYaml, or a key that is absent and would be
// added) gets its nearest ancestor's, with Inherited set. ok is false when
// doc is out of range, the path does not parse, or nothing is known.
func (r *Render) Locate(doc int, path string) (loc Location, ok bool) {
	all := r.Origins(doc, path)
	if len(all) == 0 {
		return Location{}, false
	}
	return all[0], true
}

// Origins returns every known location for the key at path in document doc,
// the one to edit first: for a Helm key set from values, the values line and
// then the template line that emits it; for kustomize, the patch line and then
// the base line. Ancestor fallback works as in [Render.Locate].
func (r *Render) Origins(doc int, path string) []Location {
	if doc < 0 || doc >= len(r.maps) {
		return nil
	}
	p, err := parsePath(path)
	if err != nil {
		return nil
	}
	m := r.maps[doc]
	for n := len(p); n >= 0; n-- {
		locs := m[formatPath(p[:n])]
		if len(locs) == 0 {
			continue
		}
		out := append([]Location(nil), locs...)
		if n < len(p) {
			for i := range out {
				out[i].Inherited = true
			}
		}
		return out
	}
	return nil
}

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
				c := &entry{path: appendSeg(e.path, seg{key: k.Value, index: -1}), key: k, value: v.Content[i+1], parent: e}
				e.children = append(e.children, c)
				out = append(out, c)
				rec(c)
			}
		case yaml.SequenceNode:
			for i, item := range v.Content {
				c := &entry{path: appendSeg(e.path, seg{index: i}), key: item, value: item, parent: e}
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

// lookupLine walks path p in a YAML tree and returns the line of the deepest
// key reached and how many segments matched. Sequences are walked by index,
// or, when match is given, by the item it picks.
func lookupLine(root *yaml.Node, p []seg) (line, matched int) {
	n := root
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n == nil {
		return 0, 0
	}
	line = n.Line
	for i, s := range p {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		switch {
		case s.index < 0 && n.Kind == yaml.MappingNode:
			found := false
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == s.key {
					line, n, found = n.Content[j].Line, n.Content[j+1], true
					break
				}
			}
			if !found {
				return line, i
			}
		case s.index >= 0 && n.Kind == yaml.SequenceNode && s.index < len(n.Content):
			n = n.Content[s.index]
			line = n.Line
		default:
			return line, i
		}
	}
	return line, len(p)
}

func parseYAML(data []byte) (*yaml.Node, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("parsing YAML: %w", err)
	}
	return &n, nil
}
