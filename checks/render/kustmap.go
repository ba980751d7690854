package render

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks/rendered"
	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resmap"
)

// documents turns a build's resources into documents and source maps
// (documents alone with opts.StreamOnly).
func (ov *overlay) documents(r *rendered.Render, m resmap.ResMap, dir string, added bool, opts rendered.Options) {
	var stream strings.Builder
	var at []int // per document, the offset of its text in stream
	lines := 0
	used := map[string]bool{}
	setsReplicas := false // whether a kustomization of the tree has replicas: entries
	for _, k := range ov.kusts {
		setsReplicas = setsReplicas || len(k.Replicas) > 0
	}
	for _, res := range m.Resources() {
		origin, _ := res.GetOrigin()
		if added {
			if err := res.SetOrigin(nil); err != nil {
				r.Problems = append(r.Problems, rendered.Problem{File: r.Root, Message: fmt.Sprintf("removing origin annotation: %v", err)})
			}
		}
		data, err := res.AsYAML()
		if err != nil {
			r.Problems = append(r.Problems, rendered.Problem{File: r.Root, Message: fmt.Sprintf("writing %s: %v", res.CurId(), err)})
			continue
		}
		if len(r.Documents) >= opts.MaxObjects || stream.Len()+len(data) > opts.MaxOutputBytes {
			r.Problems = append(r.Problems, rendered.Problem{File: r.Root, Bound: true, Message: fmt.Sprintf("render bound reached (%d objects, %d bytes); the rest is dropped", opts.MaxObjects, opts.MaxOutputBytes)})
			break
		}
		d := rendered.Document{APIVersion: res.GetApiVersion(), Kind: res.GetKind(), Name: res.GetName(), Namespace: res.GetNamespace(), YAML: data}
		var base string
		var gen rendered.Location
		switch {
		case origin != nil && origin.Repo != "":
			d.Source = origin.Repo + "//" + origin.Path
		case origin != nil && origin.ConfiguredIn != "":
			cfg, _ := join(dir, origin.ConfiguredIn)
			d.Source = cfg + "#" + d.Kind + "/" + d.Name
			line, col := lineOf(ov.text(cfg), "name: "+origin.ConfiguredBy.Name)
			gen = rendered.Location{File: cfg, Line: line, Column: col, Kind: Generator}
		case origin != nil:
			base, _ = join(dir, origin.Path)
			d.Source = base
			used[base] = true
		default:
			d.Source = r.Root + "#" + d.Kind + "/" + d.Name
		}
		fmt.Fprintf(&stream, "---\n# Source: %s\n", d.Source)
		lines += 2
		d.Line = lines + 1
		at = append(at, stream.Len())
		stream.Write(data)
		lines += strings.Count(string(data), "\n")
		r.Documents = append(r.Documents, d)
		if opts.StreamOnly {
			r.Maps = append(r.Maps, rendered.DocMap{})
		} else {
			m := ov.sourceMap(d, base, gen, used)
			if setsReplicas {
				if loc, ok := ov.replicasEntry(r.Root, d, base); ok {
					// The entry's count is the one the build applied,
					// whatever the base or a patch writes.
					m["spec.replicas"] = append([]rendered.Location{loc}, m["spec.replicas"]...)
				}
			}
			r.Maps = append(r.Maps, m)
		}
	}
	r.Stream = []byte(stream.String())
	shareStream(r, at)
	if opts.StreamOnly {
		return // without origins or maps, what no object came from is not known
	}
	for in := range ov.inputs {
		if isKustomizationName(path.Base(in)) || used[in] {
			continue
		}
		if !ov.isPatchOrGenerated(in) {
			r.Skipped = append(r.Skipped, rendered.Skipped{File: in, Reason: "no rendered object comes from it"})
		}
	}
}

// isPatchOrGenerated reports whether file is an input of the build that
// no object comes from but is not left out: a patch, a replacement's file
// (which kustomize-replacement-unmatched reads), a generator's input.
func (ov *overlay) isPatchOrGenerated(file string) bool {
	for _, p := range ov.patches {
		if p.file == file {
			return true
		}
	}
	for kf, k := range ov.kusts {
		for _, r := range k.Replacements {
			if f, ok := join(path.Dir(kf), r.Path); ok && r.Path != "" && f == file {
				return true
			}
		}
	}
	// Generator inputs (config files, env files) feed generated objects.
	return !strings.HasSuffix(file, ".yaml") && !strings.HasSuffix(file, ".yml")
}

// sourceMap maps a rendered object's keys to its base file and to the patches
// setting them. A key a patch sets as a value maps to the patch first; a key
// the base has maps to the base first.
func (ov *overlay) sourceMap(d rendered.Document, base string, gen rendered.Location, used map[string]bool) rendered.DocMap {
	m := rendered.DocMap{}
	node, err := parseYAML(d.YAML)
	if err != nil || len(node.Content) == 0 {
		return m
	}
	obj := node.Content[0]
	var baseDoc *yaml.Node
	if base != "" {
		baseDoc = pickDoc(ov.text(base), d.Kind, d.Name)
	}
	type hit struct {
		loc  rendered.Location
		leaf bool
	}
	patched := map[string]hit{}
	for _, p := range ov.patches {
		if p.kind != "" && p.kind != d.Kind || p.name != "" && !strings.Contains(d.Name, p.name) {
			continue
		}
		used[p.file] = true
		text, at := p.text(ov)
		kind := Patch
		if p.inline != nil {
			kind = rendered.InlinePatch
		}
		if p.json6902 {
			for k, op := range jsonPatchPaths(text) {
				line, col := at(op.Line, op.Column)
				patched[k] = hit{rendered.Location{File: p.file, Line: line, Column: col, Kind: kind}, true}
			}
			continue
		}
		doc := pickDoc(text, d.Kind, p.name)
		if doc == nil {
			continue
		}
		smpPaths(doc, obj, nil, func(keys []seg, n *yaml.Node, leaf bool) {
			line, col := at(n.Line, n.Column)
			patched[formatPath(keys)] = hit{rendered.Location{File: p.file, Line: line, Column: col, Kind: kind}, leaf}
		})
	}
	top := rendered.Location{File: d.Source, Kind: Base}
	if gen.File != "" {
		top = gen
	} else if baseDoc != nil {
		top.Line, top.Column = baseDoc.Line, baseDoc.Column
	}
	m[""] = []rendered.Location{top}
	for _, e := range walk(obj)[1:] {
		key := formatPath(e.path)
		var locs []rendered.Location
		h, isPatched := patched[key]
		if isPatched && h.leaf {
			locs = append(locs, h.loc)
		}
		if baseDoc != nil {
			if n := matchNode(baseDoc, obj, e.path); n != nil {
				locs = append(locs, rendered.Location{File: base, Line: n.Line, Column: n.Column, Kind: Base})
			}
		}
		if isPatched && !h.leaf {
			locs = append(locs, h.loc)
		}
		if len(locs) > 0 {
			m[key] = locs
		}
	}
	return m
}

// replicasKinds are the kinds whose spec.replicas kustomize's replicas:
// entries set.
var replicasKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "ReplicaSet": true, "ReplicationController": true}

// replicasEntry returns where the tree of root kustomization kfile sets
// document d's replicas with a replicas: entry naming it (by its name as
// rendered or as its base file writes it, before a prefix or suffix): the
// root's own entry (the build applies it last), else that of the
// kustomization nearest the root whose folder holds d's base file. ok is
// false when no entry names d.
func (ov *overlay) replicasEntry(kfile string, d rendered.Document, base string) (rendered.Location, bool) {
	if !replicasKinds[d.Kind] {
		return rendered.Location{}, false
	}
	written := d.Name
	if base != "" {
		if n := valueAt(valueAt(pickDoc(ov.text(base), d.Kind, d.Name), "metadata"), "name"); n != nil {
			written = n.Value
		}
	}
	for i, l := range ov.levels(kfile) {
		if i > 0 && (base == "" || !strings.HasPrefix(base, path.Dir(l.file)+"/")) {
			continue
		}
		for j, rep := range l.k.Replicas {
			if rep.Name != d.Name && rep.Name != written {
				continue
			}
			if line, col, ok := replicasLine(ov.text(l.file), j); ok {
				return rendered.Location{File: l.file, Line: line, Column: col, Kind: rendered.Replicas}, true
			}
		}
	}
	return rendered.Location{}, false
}

// replicasLine returns where item i of the replicas: list of kustomization
// text data writes its count (its name when it writes none).
func replicasLine(data []byte, i int) (line, col int, ok bool) {
	doc, err := parseYAML(data)
	if err != nil || len(doc.Content) == 0 {
		return 0, 0, false
	}
	reps := valueAt(doc.Content[0], "replicas")
	if reps == nil || reps.Kind != yaml.SequenceNode || i >= len(reps.Content) {
		return 0, 0, false
	}
	item := reps.Content[i]
	for _, k := range []string{"count", "name"} {
		if n := keyAt(item, k); n != nil {
			return n.Line, n.Column, true
		}
	}
	return 0, 0, false
}

// pickDoc returns the document of a multi-document file with the given kind
// whose name the rendered name contains (the longest such name: prefixes and
// suffixes are added on the way up), or the only document of that kind.
func pickDoc(data []byte, kind, name string) *yaml.Node {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var best *yaml.Node
	bestLen := -1
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			break
		}
		if len(n.Content) == 0 {
			continue
		}
		root := n.Content[0]
		k, nm := scalarAt(root, "kind"), scalarAt(valueAt(root, "metadata"), "name")
		if kind != "" && k != kind {
			continue
		}
		if name != "" && !strings.Contains(name, nm) {
			continue
		}
		if len(nm) > bestLen {
			best, bestLen = root, len(nm)
		}
	}
	return best
}

func valueAt(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func keyAt(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

func scalarAt(n *yaml.Node, key string) string {
	if v := valueAt(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// mergeKeys are the keys strategic merge uses to pair list items, most
// common first.
var mergeKeys = []string{"name", "mountPath", "containerPort", "devicePath", "ip", "topologyKey", "key", "type"}

// pairItem returns the index of the item of seq that pairs with item: same
// merge key value, or the same scalar.
func pairItem(seq *yaml.Node, item *yaml.Node) int {
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return -1
	}
	if item.Kind == yaml.ScalarNode {
		for i, c := range seq.Content {
			if c.Kind == yaml.ScalarNode && c.Value == item.Value {
				return i
			}
		}
		return -1
	}
	for _, mk := range mergeKeys {
		v := scalarAt(item, mk)
		if v == "" {
			continue
		}
		for i, c := range seq.Content {
			if scalarAt(c, mk) == v {
				return i
			}
		}
		return -1
	}
	return -1
}

// matchNode walks path p (a path of rendered) through base, pairing list
// items by merge key, and returns the node that writes what p names when
// all of p is reached (its key, or the list item), else nil.
func matchNode(base, obj *yaml.Node, p []seg) *yaml.Node {
	b, r := base, obj
	at := base
	for _, s := range p {
		if s.Index < 0 {
			k := keyAt(b, s.Key)
			if k == nil {
				return nil
			}
			at, b, r = k, valueAt(b, s.Key), valueAt(r, s.Key)
			continue
		}
		if r == nil || r.Kind != yaml.SequenceNode || s.Index >= len(r.Content) || b == nil || b.Kind != yaml.SequenceNode {
			return nil
		}
		item := r.Content[s.Index]
		i := pairItem(b, item)
		if i < 0 {
			if item.Kind != yaml.MappingNode || scalarAt(item, "name") != "" || s.Index >= len(b.Content) {
				return nil
			}
			i = s.Index
		}
		b, r = b.Content[i], item
		at = b
	}
	return at
}

// smpPaths walks a strategic-merge patch alongside the rendered object and
// reports each patch key (or list item) at its rendered path; leaf is true
// when the patch sets the value there rather than descending through it.
func smpPaths(patch, obj *yaml.Node, at []seg, report func(at []seg, n *yaml.Node, leaf bool)) {
	switch patch.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(patch.Content); i += 2 {
			k, v := patch.Content[i], patch.Content[i+1]
			if strings.HasPrefix(k.Value, "$") {
				continue
			}
			if len(at) == 0 && (k.Value == "apiVersion" || k.Value == "kind" || k.Value == "metadata") {
				continue
			}
			rv := valueAt(obj, k.Value)
			if rv == nil {
				continue
			}
			p := appendSeg(at, seg{Key: k.Value, Index: -1})
			leaf := v.Kind == yaml.ScalarNode || v.Kind != rv.Kind
			report(p, k, leaf)
			if !leaf {
				smpPaths(v, rv, p, report)
			}
		}
	case yaml.SequenceNode:
		for _, item := range patch.Content {
			i := pairItem(obj, item)
			if i < 0 {
				continue
			}
			p := appendSeg(at, seg{Index: i})
			report(p, item, item.Kind == yaml.ScalarNode)
			smpPaths(item, obj.Content[i], p, report)
		}
	}
}

// jsonPatchPaths maps the paths a JSON 6902 patch sets to the line and
// column of each operation's value key (or path key).
func jsonPatchPaths(data []byte) map[string]rendered.Location {
	out := map[string]rendered.Location{}
	n, err := parseYAML(data)
	if err != nil || len(n.Content) == 0 || n.Content[0].Kind != yaml.SequenceNode {
		return out
	}
	for _, op := range n.Content[0].Content {
		pth := scalarAt(op, "path")
		if pth == "" || scalarAt(op, "op") == "remove" {
			continue
		}
		at := rendered.Location{Line: op.Line, Column: op.Column}
		if k := keyAt(op, "value"); k != nil {
			at.Line, at.Column = k.Line, k.Column
		} else if k := keyAt(op, "path"); k != nil {
			at.Line, at.Column = k.Line, k.Column
		}
		var p []seg
		for _, part := range strings.Split(strings.TrimPrefix(pth, "/"), "/") {
			part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
			if i, err := strconv.Atoi(part); err == nil {
				p = append(p, seg{Index: i})
			} else {
				p = append(p, seg{Key: part, Index: -1})
			}
		}
		out[formatPath(p)] = at
	}
	return out
}

// lineOf returns the 1-based line and column of the first line of data
// containing s, and where on it s is, or 0, 0.
func lineOf(data []byte, s string) (line, col int) {
	for i, l := range strings.Split(string(data), "\n") {
		if c := strings.Index(l, s); c >= 0 {
			return i + 1, c + 1
		}
	}
	return 0, 0
}
