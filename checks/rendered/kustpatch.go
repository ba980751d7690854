package rendered

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// When no patch or base line an overlay builds from can take a fix (the
// object comes from a generator or from outside the repository), or the
// base line it would edit is built by other overlays that do not share
// the finding (editing it would change what they build, which building
// this overlay again does not check), the fix is a patch added to the
// overlay: one entry appended to the `patches:` of its kustomization
// file, inline, so that the fix stays an edit of one file as every output
// shows and applies fixes. The patch follows what the overlay already
// uses: a JSON 6902 patch when its patches are all JSON 6902 (or when a
// list item on the way has no name to merge by), else a strategic-merge
// patch. It is verified as the other kustomize fixes are.

// baseTarget is where a kustomize fix would go as an edit of a patch or
// base line: the location of the first edit's longest prefix that has a
// patch or base line; nil when none has.
func (pl *placed) baseTarget(f checks.Finding) *Location {
	doc, root := pl.findingDoc(f)
	if root == nil || len(f.Fix.Edits) == 0 {
		return nil
	}
	return pl.patchOrBaseLine(doc, root, f.Fix.Edits[0].Path)
}

// patchOrBaseLine is the location of the longest prefix of path p in
// document doc (parsed: root) that has a patch or base line; nil when
// none has, or when a prefix on the way is overridden (its key is set by
// a kustomization's own patch text or replicas: entry).
func (pl *placed) patchOrBaseLine(doc int, root *yaml.Node, p []string) *Location {
	segs, _ := yamlpath.Walk(root, p)
	for n := len(segs); n >= 0; n-- {
		locs := pl.render.Map(doc)[FormatPath(segs[:n])]
		if len(locs) > 0 && overridden(locs[0]) {
			return nil
		}
		for _, loc := range locs {
			if (loc.Kind == Patch || loc.Kind == Base) && loc.Line > 0 {
				return &loc
			}
		}
	}
	return nil
}

// builds reports whether the overlay read file (relative to its folder).
func (pl *placed) builds(file string) bool {
	for _, in := range pl.render.Inputs {
		if in == file {
			return true
		}
	}
	return false
}

// fileLine is a line of a file of a render's folder.
type fileLine struct {
	file string
	line int
}

// takenLines are the lines the overlay's build takes a value from: the
// first location of each key path (a patch's line before the base line it
// overrides). An overlay that reads a file but sets a field in a patch of
// its own (staging patching the base's replicas) does not take that line,
// and an edit of it changes nothing it builds.
func (pl *placed) takenLines() map[fileLine]bool {
	out := map[fileLine]bool{}
	for doc := range pl.render.Maps {
		for _, locs := range pl.render.Map(doc) {
			if len(locs) > 0 {
				out[fileLine{locs[0].File, locs[0].Line}] = true
			}
		}
	}
	return out
}

// sharedEdits returns, for the kustomize findings of fs grouped by render,
// the indexes whose base or patch line another overlay takes a value from
// without the same finding (rule) at that line: their fixes become patches
// of their own overlay.
func (p *Prepared) sharedEdits(order []*placed, byRender map[*placed][]int, fs []checks.Finding) map[int]bool {
	type at struct {
		file, rule string
		line       int
	}
	alike := map[at]map[*placed]bool{}
	where := map[int]at{}
	for _, pl := range order {
		if pl.render.Kind != Kustomize {
			continue
		}
		for _, i := range byRender[pl] {
			loc := pl.baseTarget(fs[i])
			if loc == nil {
				continue
			}
			k := at{joinDir(pl.dir, loc.File), fs[i].RuleID, loc.Line}
			where[i] = k
			if alike[k] == nil {
				alike[k] = map[*placed]bool{}
			}
			alike[k][pl] = true
		}
	}
	out := map[int]bool{}
	taken := map[*placed]map[fileLine]bool{} // made once per other overlay
	for i, k := range where {
		for _, other := range p.renders {
			if other.render.Kind != Kustomize || len(other.render.ValuesFiles) > 0 || alike[k][other] {
				continue
			}
			rel := strings.TrimPrefix(k.file, other.dir+"/")
			if other.dir == "." || other.dir == "" {
				rel = k.file
			}
			if !other.builds(rel) {
				continue
			}
			if taken[other] == nil {
				taken[other] = other.takenLines()
			}
			if taken[other][fileLine{rel, k.line}] {
				out[i] = true
				break
			}
		}
	}
	return out
}

// overlayPatch returns f's fix as a patch appended to the overlay's
// kustomization file (see above); false when the edits cannot be written
// as one (a deletion, an object without a kind or name).
func (pl *placed) overlayPatch(files fileSet, f checks.Finding) (placement, bool) {
	doc, root := pl.findingDoc(f)
	return pl.patchOf(files, doc, root, f.Fix.Edits)
}

// patchOf returns ops, edits of rendered document doc (parsed: root), as
// a patch appended to the overlay's kustomization file.
func (pl *placed) patchOf(files fileSet, doc int, root *yaml.Node, ops []edit.Op) (placement, bool) {
	r := pl.render
	if root == nil || doc >= len(r.Documents) {
		return placement{}, false
	}
	d := r.Documents[doc]
	kdata, ok := files.file(r.Root)
	if !ok || d.Kind == "" || d.Name == "" {
		return placement{}, false
	}
	kust := yamlpath.ParseDoc(kdata)
	if kust == nil || kust.Kind != yaml.MappingNode {
		return placement{}, false
	}
	for _, op := range ops {
		if op.Action == edit.Delete {
			return placement{}, false
		}
	}
	name := pl.originalName(doc, d.Name)
	var entry string
	var err error
	kind := json6902
	if pl.usesJSONPatches(files, kust) {
		entry, err = jsonPatchEntry(root, d, name, ops)
	} else if entry, err = smpEntry(root, d, name, ops); err == nil {
		kind = strategicMerge
	} else {
		entry, err = jsonPatchEntry(root, d, name, ops)
	}
	if err != nil {
		return placement{}, false
	}
	out := placement{file: r.Root, doc: 0, edits: []edit.Op{{Action: edit.Append, Path: []string{"patches"}, Value: entry}}, patch: kind}
	for _, op := range ops {
		out.from = append(out.from, op.Path)
	}
	out.line = patchLine(kust)
	out.note = fmt.Sprintf(" (as a patch added to %s)", path.Base(r.Root))
	return out, true
}

// combineOverlayPatches gives the verified fixes of one rendered document
// that became strategic-merge patches of the overlay one patch: each was
// verified as a patch of its own, and a Deployment with ten findings
// would be named by ten entries of the overlay's patches. Every one of
// those fixes then carries the patch of all their edits (the fix engine
// writes an identical edit of one document once), so applying any of them
// applies all and the overlay gains one entry. That patch builds what
// their own patches build applied together, as they were verified and as
// fix applies them: each sets its own fields of the object, by key, and
// lists merge by their items' names. JSON 6902 patches keep one entry a
// fix: their operations are made against the document as rendered, so
// two fixes' operations adding one parent differ made together, and only
// building the overlay again could tell (on the corpus's overlays, 15
// builds more of argo-cd's dev-tilt took fix --all 1.4 times the CPU).
func (pl *placed) combineOverlayPatches(src *source, fs []checks.Finding, kept []candidate) {
	docs, byDoc := keptByDoc(kept, func(c candidate) bool { return c.place.patch == strategicMerge })
	for _, d := range docs {
		idx := byDoc[d]
		if len(idx) < 2 {
			continue
		}
		lists := make([][]edit.Op, len(idx))
		for j, i := range idx {
			lists[j] = fs[kept[i].finding].Fix.Edits
		}
		whole, ok := pl.patchOf(src, d, pl.renderedDoc(d), edit.Union(lists...))
		if !ok || whole.patch != strategicMerge {
			continue
		}
		for _, i := range idx {
			kept[i].place = whole
		}
	}
}

// originalName is the name the overlay's base gives object doc (before a
// namePrefix or nameSuffix), which a patch names it by: the base
// document's metadata.name when the object maps to one, else rendered.
func (pl *placed) originalName(doc int, rendered string) string {
	for _, loc := range pl.render.Map(doc)["metadata.name"] {
		if loc.Kind == Base && loc.Line > 0 && pl.src != nil {
			for _, n := range yamlpath.ParseDocs(contents(pl.src, loc.File), 1000) {
				if md := mapValue(n, "metadata"); md != nil && mapValue(md, "name") != nil && mapValue(md, "name").Line == loc.Line {
					return mapValue(md, "name").Value
				}
			}
		}
	}
	return rendered
}

// usesJSONPatches reports whether the kustomization's patches are all
// JSON 6902 ones (inline or in files): then the added patch is one too.
func (pl *placed) usesJSONPatches(files fileSet, kust *yaml.Node) bool {
	seen := false
	for _, key := range []string{"patches", "patchesJson6902", "patchesStrategicMerge"} {
		list := mapValue(kust, key)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, it := range list.Content {
			var text []byte
			switch {
			case it.Kind == yaml.ScalarNode:
				text = []byte(it.Value)
				if data, ok := files.file(path.Join(path.Dir(pl.render.Root), it.Value)); ok {
					text = data
				}
			case mapValue(it, "patch") != nil:
				text = []byte(mapValue(it, "patch").Value)
			case mapValue(it, "path") != nil:
				text = contents(files, path.Join(path.Dir(pl.render.Root), mapValue(it, "path").Value))
			}
			n := yamlpath.ParseDoc(text)
			if n == nil || n.Kind != yaml.SequenceNode {
				return false
			}
			seen = true
		}
	}
	return seen
}

// smpEntry writes the edits as a strategic-merge patch of the object:
// its apiVersion, kind and name, and along each edit's path the keys, and
// the list items by their name, after the list's other items by name alone
// (so the merge keeps their order; a list that does not merge by name
// makes no strategic-merge patch). A list a value is appended to holds that
// value alone when the merge adds it to the object's items (a pod's
// volumes, by name: the rendered items would pin what the build made of
// them, such as a generated ConfigMap's hashed name), else the rendered
// items too, as a strategic merge replaces such a list (args, a list of
// scalars, a custom resource's lists).
func smpEntry(root *yaml.Node, d Document, name string, ops []edit.Op) (string, error) {
	skel := &yaml.Node{Kind: yaml.MappingNode}
	set := func(m *yaml.Node, k string, v *yaml.Node) *yaml.Node {
		if got := mapValue(m, k); got != nil {
			return got
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
		return v
	}
	scalar := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }
	set(skel, "apiVersion", scalar(d.APIVersion))
	set(skel, "kind", scalar(d.Kind))
	set(set(skel, "metadata", &yaml.Node{Kind: yaml.MappingNode}), "name", scalar(name))
	var eds []edit.Op
	for _, op := range ops {
		segs, nodes := yamlpath.Walk(root, op.Path)
		lastIdx := -1
		for i, sg := range segs {
			if sg.Index >= 0 {
				lastIdx = i
			}
		}
		s, p := skel, []string{}
		for i, sg := range segs {
			if i > lastIdx {
				p = append(p, sg.Key) // the edit makes what is missing past the last list item
				continue
			}
			if sg.Index >= 0 {
				item := nodes[i+1]
				nm := mapValue(item, "name")
				if item == nil || nm == nil || s.Kind != yaml.SequenceNode {
					return "", fmt.Errorf("item %d has no name to merge by", sg.Index)
				}
				if len(s.Content) == 0 {
					// The list's rendered items by name, in order: merging
					// a patch that names one item alone puts it first
					// (kustomize's merge), which would make another
					// container the pod's first, its default one.
					if mergeKey(d, segs[:i]) != "name" {
						return "", fmt.Errorf("%s does not merge its items by name", segs[i-1].Key)
					}
					for _, it := range nodes[i].Content {
						n := mapValue(it, "name")
						if n == nil {
							return "", fmt.Errorf("an item of %s has no name", segs[i-1].Key)
						}
						s.Content = append(s.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("name"), scalar(n.Value)}})
					}
				}
				found := -1
				for j, it := range s.Content {
					if mapValue(it, "name").Value == nm.Value {
						found = j
					}
				}
				if found < 0 {
					s.Content = append(s.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("name"), scalar(nm.Value)}})
					found = len(s.Content) - 1
				}
				p = append(p, strconv.Itoa(found))
				s = s.Content[found]
				continue
			}
			kind := yaml.MappingNode
			if segs[i+1].Index >= 0 {
				kind = yaml.SequenceNode
			}
			p = append(p, sg.Key)
			s = set(s, sg.Key, &yaml.Node{Kind: kind})
		}
		t := op
		t.Path, t.Comment = p, ""
		if had := nodes[len(segs)]; op.Action == edit.Append && had != nil && had.Kind == yaml.SequenceNode && len(had.Content) > 0 && mergeKey(d, segs) == "" {
			// A strategic merge replaces a list of scalars: the patch
			// holds the rendered items and the appended one.
			var v yaml.Node
			if err := yaml.Unmarshal([]byte(op.Value), &v); err != nil || len(v.Content) == 0 {
				return "", fmt.Errorf("value of %s does not parse", strings.Join(op.Path, "."))
			}
			list := &yaml.Node{Kind: yaml.SequenceNode, Content: append(append([]*yaml.Node(nil), had.Content...), v.Content[0])}
			text, err := marshal2(list)
			if err != nil {
				return "", err
			}
			t.Action, t.Value = edit.Set, string(text)
		}
		eds = append(eds, t)
	}
	text, err := marshal2(skel)
	if err != nil {
		return "", err
	}
	patched, err := edit.Apply(text, 0, eds)
	if err != nil {
		return "", err
	}
	return entryText("", strings.TrimRight(string(patched), "\n")), nil
}

// mergeKey is the key by which a strategic-merge patch of d, a built-in
// kind, merges the items of the list at segs (a key path whose list items
// are indexes) into the object's, as kustomize does: "name" for a pod's
// containers and volumes, "mountPath" for a container's volumeMounts; ""
// when the merge replaces the list. The Kubernetes types' patch metadata
// says so (patchStrategy "merge"); a kind the client-go scheme does not
// know is a custom resource, whose lists a strategic merge replaces.
func mergeKey(d Document, segs []yamlpath.Segment) string {
	gv, err := schema.ParseGroupVersion(d.APIVersion)
	if err != nil || len(segs) == 0 {
		return ""
	}
	obj, err := scheme.Scheme.New(gv.WithKind(d.Kind))
	if err != nil {
		return ""
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(obj)
	if err != nil {
		return ""
	}
	var at strategicpatch.LookupPatchMeta = meta
	for i, sg := range segs {
		switch {
		case sg.Index >= 0:
			continue // the item: at is its type already
		case i == len(segs)-1:
			_, pm, err := at.LookupPatchMetadataForSlice(sg.Key)
			if err != nil || !slices.Contains(pm.GetPatchStrategies(), "merge") {
				return ""
			}
			return pm.GetPatchMergeKey()
		case segs[i+1].Index >= 0:
			at, _, err = at.LookupPatchMetadataForSlice(sg.Key)
		default:
			at, _, err = at.LookupPatchMetadataForStruct(sg.Key)
		}
		if err != nil {
			return ""
		}
	}
	return ""
}

// jsonPatchEntry writes the edits as a JSON 6902 patch of the object,
// targeted by its kind and name: a value set where the object has one is
// a replace, else an add at the first path the object lacks, holding the
// rest; an append adds to the list's end (or adds the list).
func jsonPatchEntry(root *yaml.Node, d Document, name string, ops []edit.Op) (string, error) {
	var list []any
	for i, op := range ops {
		if i > 0 {
			// Later operations see what earlier ones added.
			var err error
			if root, err = applied(root, ops[i-1]); err != nil {
				return "", err
			}
		}
		segs, nodes := yamlpath.Walk(root, op.Path)
		var v any
		if err := yaml.Unmarshal([]byte(op.Value), &v); err != nil {
			return "", err
		}
		if op.Action == edit.Append {
			if nodes[len(segs)] != nil {
				list = append(list, map[string]any{"op": "add", "path": pointer(op.Path) + "/-", "value": v})
				continue
			}
			v = []any{v}
		}
		if nodes[len(segs)] != nil {
			list = append(list, map[string]any{"op": "replace", "path": pointer(op.Path), "value": v})
			continue
		}
		n := len(segs)
		for n > 0 && nodes[n] == nil {
			n--
		}
		// nodes[n] exists; add op.Path[:n+1] holding the rest.
		for k := len(op.Path) - 1; k > n; k-- {
			if segs[k].Index >= 0 {
				return "", fmt.Errorf("%s indexes a list the object lacks", strings.Join(op.Path, "."))
			}
			v = map[string]any{op.Path[k]: v}
		}
		list = append(list, map[string]any{"op": "add", "path": pointer(op.Path[:n+1]), "value": v})
	}
	text, err := marshal2(list)
	if err != nil {
		return "", err
	}
	target := fmt.Sprintf("target:\n  kind: %s\n  name: %s\n", d.Kind, edit.StringScalar(name))
	return entryText(target, strings.TrimRight(string(text), "\n")), nil
}

// pointer is a JSON pointer to path p.
func pointer(p []string) string {
	var b strings.Builder
	for _, s := range p {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}

// entryText is a patches: item holding patch inline, after target (its
// lines, or "").
func entryText(target, patch string) string {
	return target + "patch: |-\n  " + strings.ReplaceAll(patch, "\n", "\n  ") + "\n"
}

// marshal2 writes v as YAML indented by two spaces, as kustomizations
// usually are.
func marshal2(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// applied returns the document root with op made.
func applied(root *yaml.Node, op edit.Op) (*yaml.Node, error) {
	text, err := marshal2(root)
	if err != nil {
		return nil, err
	}
	if text, err = edit.Apply(text, 0, []edit.Op{op}); err != nil {
		return nil, err
	}
	if n := yamlpath.ParseDoc(text); n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("the edited object does not parse")
}

// patchLine is the line of a kustomization where an added patch is said:
// its patches: key, else the resources: (or bases:) that bring in what the
// patch changes, else its first key; never a line the author did not
// write.
func patchLine(kust *yaml.Node) int {
	if kust == nil || kust.Kind != yaml.MappingNode || len(kust.Content) == 0 {
		return 1
	}
	for _, key := range []string{"patches", "resources", "bases"} {
		for j := 0; j+1 < len(kust.Content); j += 2 {
			if kust.Content[j].Value == key {
				return kust.Content[j].Line
			}
		}
	}
	return kust.Content[0].Line
}
