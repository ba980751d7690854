package rendered

import (
	"fmt"
	"path"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// A finding of a kustomize overlay is fixed in the file that sets the
// field: the patch whose line the key maps to, or the base resource file.
// A patch is edited as the partial object it is (its keys only, its list
// items found by name), never as a whole object; the overlay is built
// again with the edit, and the fix is kept only when the finding is gone,
// no finding came, and no value the build had changed but those the fix
// sets (a placeholder label written into a patch would override the
// base's real one).

// kustomizeEdits returns f's fix as edits of the patch or base file that
// sets the keys it changes: every edit's longest prefix with a location
// of its own must map to a patch or base line, all in one document of one
// file, and the path is read against that document (sequence items by
// their name, as strategic merge matches them).
func (pl *placed) kustomizeEdits(files fileSet, f checks.Finding) (placement, bool) {
	doc, root := pl.findingDoc(f)
	if root == nil {
		return placement{}, false
	}
	var out placement
	var target *yaml.Node
	for _, op := range f.Fix.Edits {
		at := pl.patchOrBaseLine(doc, root, op.Path)
		if at == nil {
			return placement{}, false
		}
		if out.file == "" {
			data, ok := files.file(at.File)
			if !ok {
				return placement{}, false
			}
			docs := yamlpath.ParseDocs(data, 1000)
			out.file, out.doc = at.File, -1
			for i, d := range docs {
				if d != nil && d.Line <= at.Line {
					out.doc, target = i, d
				}
			}
			if target == nil || target.Kind != yaml.MappingNode && target.Kind != yaml.SequenceNode {
				return placement{}, false
			}
		}
		if at.File != out.file {
			return placement{}, false
		}
		var p []string
		var ok bool
		if target.Kind == yaml.SequenceNode {
			// A JSON 6902 patch file: the value of the operation that
			// writes exactly what the edit sets.
			p, ok = jsonOpValue(target, op)
		} else {
			p, ok = samePath(root, target, op.Path)
		}
		if !ok {
			return placement{}, false
		}
		t := op
		t.Path = p
		out.edits = append(out.edits, t)
		out.from = append(out.from, op.Path)
	}
	if len(out.edits) == 0 {
		return placement{}, false
	}
	out.line = yamlpath.NearestLine(target, out.edits[0].Path)
	out.note = fmt.Sprintf(" (in %s)", path.Base(out.file))
	return out, true
}

// replicasCountEdit returns f's fix, when it sets spec.replicas alone and
// a kustomization's replicas: entry sets the rendered document's (the
// first location the map gives it), as an edit of that entry's count:
// the count the build applies, which an edit of the base or a patch
// would not change.
func (pl *placed) replicasCountEdit(files fileSet, f checks.Finding) (placement, bool) {
	doc, _ := pl.findingDoc(f)
	ops := f.Fix.Edits
	if len(ops) != 1 || ops[0].Action != edit.Set || strings.Join(ops[0].Path, ".") != "spec.replicas" {
		return placement{}, false
	}
	locs := pl.render.Map(doc)["spec.replicas"]
	if len(locs) == 0 || locs[0].Kind != Replicas {
		return placement{}, false
	}
	at := locs[0]
	data, ok := files.file(at.File)
	if !ok {
		return placement{}, false
	}
	reps := mapValue(yamlpath.ParseDoc(data), "replicas")
	if reps == nil || reps.Kind != yaml.SequenceNode {
		return placement{}, false
	}
	for i, item := range reps.Content {
		for _, k := range []string{"count", "name"} {
			if n := mapValue(item, k); n != nil && n.Line == at.Line {
				op := ops[0]
				op.Path = []string{"replicas", strconv.Itoa(i), "count"}
				return placement{file: at.File, doc: 0, line: at.Line, edits: []edit.Op{op}, from: [][]string{ops[0].Path},
					note: fmt.Sprintf(" (as the count of its replicas: entry in %s)", path.Base(at.File))}, true
			}
		}
	}
	return placement{}, false
}

// overridden reports whether loc, a key's first location, sets it over
// any edit of a patch file or base line: a patch written in the
// kustomization's own text, or a replicas: entry. A fix of that key is
// made there (inlinePatchEdit, replicasCountEdit) or is a patch appended
// after it.
func overridden(loc Location) bool {
	return loc.Kind == InlinePatch || loc.Kind == Replicas
}

// samePath reads p, a path of the rendered document, against target (a
// patch or base document of it): keys as they are, and each sequence
// index as the index of the target's item of the same name. Past what
// target holds, the rest of p is kept (the edit creates it) unless it
// indexes a sequence target lacks.
func samePath(rendered, target *yaml.Node, p []string) ([]string, bool) {
	out := make([]string, 0, len(p))
	r, t := rendered, target
	for i, k := range p {
		if t == nil {
			for _, rest := range p[i:] {
				if _, err := strconv.Atoi(rest); err == nil {
					return nil, false
				}
			}
			return append(out, p[i:]...), true
		}
		if r != nil && r.Kind == yaml.SequenceNode {
			idx, err := strconv.Atoi(k)
			if err != nil || t.Kind != yaml.SequenceNode {
				return nil, false
			}
			if idx >= len(r.Content) {
				// An append: after the target's own items.
				out = append(out, strconv.Itoa(len(t.Content)+idx-len(r.Content)))
				r, t = nil, nil
				continue
			}
			item := r.Content[idx]
			name := mapValue(item, "name")
			found := -1
			for j, ti := range t.Content {
				if name != nil && mapValue(ti, "name") != nil && mapValue(ti, "name").Value == name.Value {
					found = j
				}
			}
			if found < 0 && name == nil && len(t.Content) == len(r.Content) {
				a, okA := yamlpath.Plain(item)
				b, okB := yamlpath.Plain(t.Content[idx])
				if okA && okB && reflect.DeepEqual(a, b) {
					found = idx
				}
			}
			if found < 0 {
				return nil, false
			}
			out = append(out, strconv.Itoa(found))
			r, t = item, t.Content[found]
			continue
		}
		if t.Kind != yaml.MappingNode {
			return nil, false
		}
		out = append(out, k)
		r, t = mapValue(r, k), mapValue(t, k)
	}
	return out, true
}

// mapValue is the value of key k in mapping n, or nil.
func mapValue(n *yaml.Node, k string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == k {
			return n.Content[j+1]
		}
	}
	return nil
}

// overrides reports a value of the old render that the new one changed
// although no candidate's edit sets it (a placeholder that replaced a
// base's real label): objects are matched by kind, namespace and name,
// and every scalar of the old one must be the same in the new one unless
// it lies under a path a candidate edits on that object.
func overrides(old, now *Render, cands []candidate, docOf func(candidate) int) string {
	type id struct{ kind, ns, name string }
	edited := map[id][][]string{}
	for _, c := range cands {
		d := docOf(c)
		if d < 0 || d >= len(old.Documents) {
			continue
		}
		o := old.Documents[d]
		k := id{o.Kind, o.Namespace, o.Name}
		edited[k] = append(edited[k], c.place.from...)
	}
	byID := map[id]*yaml.Node{}
	for _, d := range now.Documents {
		byID[id{d.Kind, d.Namespace, d.Name}] = yamlpath.ParseDoc(d.YAML)
	}
	for _, d := range old.Documents {
		k := id{d.Kind, d.Namespace, d.Name}
		n, ok := byID[k]
		if !ok {
			return fmt.Sprintf("%s %s is gone from the build", d.Kind, d.Name)
		}
		if p := changedScalar(yamlpath.ParseDoc(d.YAML), n, nil, edited[k]); p != "" {
			return fmt.Sprintf("it changes %s of %s %s, which the build had", p, d.Kind, d.Name)
		}
	}
	return ""
}

// changedScalar returns the path of a scalar of a that b does not hold
// with the same value, outside the paths skip; "" when there is none.
func changedScalar(a, b *yaml.Node, at []string, skip [][]string) string {
	for _, s := range skip {
		if len(s) <= len(at) && reflect.DeepEqual(s, at[:len(s)]) {
			return ""
		}
	}
	if a == nil {
		return ""
	}
	switch a.Kind {
	case yaml.MappingNode:
		for j := 0; j+1 < len(a.Content); j += 2 {
			k := a.Content[j].Value
			if p := changedScalar(a.Content[j+1], mapValue(b, k), append(append([]string(nil), at...), k), skip); p != "" {
				return p
			}
		}
	case yaml.SequenceNode:
		for j, it := range a.Content {
			var bt *yaml.Node
			if b != nil && b.Kind == yaml.SequenceNode && j < len(b.Content) {
				bt = b.Content[j]
			}
			if p := changedScalar(it, bt, append(append([]string(nil), at...), strconv.Itoa(j)), skip); p != "" {
				return p
			}
		}
	case yaml.ScalarNode:
		if b == nil || b.Kind != yaml.ScalarNode || b.Value != a.Value {
			return strings.Join(at, ".")
		}
	}
	return ""
}
