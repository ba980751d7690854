package render

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
)

// unmatched returns the targeted patches (patches and patchesJson6902
// entries with a target) and the replacements' targets of the
// kustomizations of the build of root kustomization kfile that select no
// object of the build m: kustomize applies such a patch or replacement to
// nothing and says nothing (a strategic-merge patch without a target that
// names no object fails the build instead, and so does a replacement's
// source that selects nothing). m must still carry the origin annotations
// the build was asked for.
//
// The selection is kustomize's own (types.SelectorRegex, the label and
// annotation selectors of kyaml), tried on each name and namespace an
// object could have had when the patch ran, so that no patch that did
// select is reported (see formerIDs); labels and annotations are the
// built ones, which the kustomizations only add to. A base's patch ran
// on its own objects, before the levels above it renamed them: it is
// tried on every object, under every name the tree's prefixes and
// suffixes could have given it (see looseIDs), so it is reported only
// when no object of the build could have been it. A replacement selects
// by every name an object has had (kustomize keeps them), and is tried
// as loosely, wherever it is. Components' patches and replacements are
// not looked at: they may be meant for objects only some overlays have;
// nor is anything of a tree a patch of which deletes (see deletes).
//
// The kustomizations whose patches or replacements are not judged are
// returned with why (unjudged), for every output to say.
func (ov *overlay) unmatched(kfile string, m resmap.ResMap) (out []rendered.Unmatched, unjudged []rendered.Skipped) {
	levels := ov.levels(kfile)
	deletes := slices.ContainsFunc(levels, func(l level) bool { return ov.deletes(l.file, l.k) })
	ids := formerIDsOf{ov: ov, levels: levels, of: map[idKey]formerID{}}
	for i, l := range levels {
		judged := judgedOf(l.k)
		switch {
		case judged.what == "":
		case deletes:
			unjudged = append(unjudged, rendered.Skipped{File: l.file, Reason: judged.notJudged() +
				"a patch of the overlay deletes objects, so its build cannot show whether a patch or replacement selected one"})
		case l.k.Kind == types.ComponentKind:
			unjudged = append(unjudged, rendered.Skipped{File: l.file, Reason: judged.notJudged() +
				"a component's " + judged.what + " may be meant for objects some overlays do not have"})
		default:
			top := mappingOf(ov.text(l.file)) // for the lines of its targets
			out = append(out, ids.unmatchedOf(l, top, i == 0, m)...)
			out = append(out, ids.unmatchedReplacementsOf(l, top, m)...)
		}
	}
	return out, unjudged
}

// judged says what of a kustomization the check judges ("patches",
// "replacements", both; "" for nothing) and the rules that judge it.
type judged struct{ what, rules string }

// judgedOf returns what of k the check judges: its patches with a
// target, its replacements.
func judgedOf(k *types.Kustomization) judged {
	patches := slices.ContainsFunc(slices.Concat(k.Patches, k.PatchesJson6902), func(p types.Patch) bool { return p.Target != nil })
	switch replacements := len(k.Replacements) > 0; {
	case patches && replacements:
		return judged{"patches and replacements", checks.PatchUnmatched + ", " + checks.ReplacementUnmatched}
	case patches:
		return judged{"patches", checks.PatchUnmatched}
	case replacements:
		return judged{"replacements", checks.ReplacementUnmatched}
	}
	return judged{}
}

// notJudged begins the reason a kustomization's patches or replacements
// were not judged.
func (j judged) notJudged() string {
	if j.what == "replacements" {
		return fmt.Sprintf("its replacements' targets are not checked for selecting nothing (%s): ", j.rules)
	}
	return fmt.Sprintf("its targeted %s are not checked for selecting nothing (%s): ", j.what, j.rules)
}

// level is a kustomization of a build's tree, parsed.
type level struct {
	file string
	k    *types.Kustomization
}

// levels returns the kustomizations of the tree of root kustomization
// kfile as the walk read them (components too), the root first and the
// others by path.
func (ov *overlay) levels(kfile string) []level {
	root, ok := ov.kusts[kfile]
	if !ok {
		return nil // the build read it: not reached
	}
	out := []level{{kfile, root}}
	for _, f := range slices.Sorted(maps.Keys(ov.kusts)) {
		if f != kfile {
			out = append(out, level{f, ov.kusts[f]})
		}
	}
	return out
}

// unmatchedOf returns the patches of level l (the root when root), whose
// text's top mapping is top, whose target selects no object of m.
func (ids *formerIDsOf) unmatchedOf(l level, top *yaml.Node, root bool, m resmap.ResMap) []rendered.Unmatched {
	lines := patchTargetLines(top)
	var out []rendered.Unmatched
	for _, field := range []struct {
		name    string
		patches []types.Patch
		// late: the entries run after the level's namespace, prefix and
		// suffix (kustomize's patchesJson6902); patches run before.
		late bool
	}{{"patches", l.k.Patches, false}, {"patchesJson6902", l.k.PatchesJson6902, true}} {
		mode := idMode{late: field.late, base: !root}
		for i, p := range field.patches {
			if p.Target == nil {
				continue
			}
			if ids.selectAny(mode, p.Target, m) {
				continue
			}
			out = append(out, rendered.Unmatched{RuleID: checks.PatchUnmatched, Kustomization: l.file, Problem: rendered.Problem{
				File: l.file, Line: lineAt(lines[field.name], i),
				Message: fmt.Sprintf("the target of %s[%d] (%s) selects no object of the build: kustomize applies the patch to nothing and says nothing, so what it sets is not set%s%s",
					field.name, i, describeSelector(p.Target), ids.namesOfKind(mode, m, p.Target), labelsNote(p.Target)),
			}})
		}
	}
	return out
}

// deletePatch matches a strategic-merge patch's directive to delete the
// object or the part it names.
var deletePatch = regexp.MustCompile(`\$patch:\s*["']?delete`)

// deletes reports whether a patch of the root kustomization k (of file
// kfile), inline or in its file, deletes: an object a patch deletes is
// not in the build, so a patch that selected it would look as if it
// selected nothing.
func (ov *overlay) deletes(kfile string, k *types.Kustomization) bool {
	texts := make([]string, 0, len(k.Patches)+len(k.PatchesJson6902)+len(k.PatchesStrategicMerge))
	for _, p := range slices.Concat(k.Patches, k.PatchesJson6902) {
		texts = append(texts, p.Patch)
		if p.Path != "" {
			if f, ok := join(path.Dir(kfile), p.Path); ok {
				texts = append(texts, string(ov.text(f)))
			}
		}
	}
	for _, p := range k.PatchesStrategicMerge {
		texts = append(texts, string(p)) // inline, or a path
		if f, ok := join(path.Dir(kfile), string(p)); ok {
			texts = append(texts, string(ov.text(f)))
		}
	}
	return slices.ContainsFunc(texts, deletePatch.MatchString)
}

// formerIDsOf works out the former names and namespaces of a build's
// objects once each, for every patch of the tree (levels, the root
// first) that looks at them.
type formerIDsOf struct {
	ov     *overlay
	levels []level
	of     map[idKey]formerID
}

// idMode says when a patch ran: late (after its kustomization's
// namespace, prefix and suffix), and in a base (a level below the root).
type idMode struct{ late, base bool }

type idKey struct {
	res  *resource.Resource
	mode idMode
}

type formerID struct{ names, namespaces []string }

// get returns res's names and namespaces for a patch run as mode says
// (formerIDs, or looseIDs in a base), worked out once.
func (ids *formerIDsOf) get(res *resource.Resource, mode idMode) formerID {
	key := idKey{res, mode}
	id, ok := ids.of[key]
	if !ok {
		if mode.base {
			id.names, id.namespaces = ids.looseIDs(res)
		} else {
			id.names, id.namespaces = ids.ov.formerIDs(ids.levels[0].file, ids.levels[0].k, mode.late, res)
		}
		ids.of[key] = id
	}
	return id
}

// selectAny reports whether sel selects an object of m under any name or
// namespace it could have had when a patch ran as mode says; true for a
// selector kustomize cannot compile (the build failed on it: not reached).
func (ids *formerIDsOf) selectAny(mode idMode, sel *types.Selector, m resmap.ResMap) bool {
	sr, err := types.NewSelectorRegex(sel)
	if err != nil {
		return true
	}
	for _, res := range m.Resources() {
		if !sr.MatchGvk(res.GetGvk()) {
			continue
		}
		id := ids.get(res, mode)
		if !slices.ContainsFunc(id.names, sr.MatchName) {
			continue
		}
		if id.namespaces != nil && !slices.ContainsFunc(id.namespaces, sr.MatchNamespace) {
			continue
		}
		labels, err := res.MatchesLabelSelector(sel.LabelSelector)
		if err != nil {
			return true // a selector kustomize refuses fails the build: not reached
		}
		annotations, err := res.MatchesAnnotationSelector(sel.AnnotationSelector)
		if err != nil {
			return true
		}
		if labels && annotations {
			return true
		}
	}
	return false
}

// looseIDs returns every name and namespace res could have had when a
// patch of a base ran: its names as formerIDs gives them, and its name
// with each prefix and suffix of the tree taken off, in any order (a base
// sees its objects before the levels above it add theirs), the shortest
// first; its namespaces, or nil (any) when a kustomization of the tree
// sets one.
func (ids *formerIDsOf) looseIDs(res *resource.Resource) (names, namespaces []string) {
	names, namespaces = ids.ov.formerIDs(ids.levels[0].file, ids.levels[0].k, false, res)
	names = append(names, res.GetName())
	for i := 0; i < len(names) && len(names) < maxLooseNames; i++ {
		for _, l := range ids.levels {
			for _, n := range []string{strings.TrimPrefix(names[i], l.k.NamePrefix), strings.TrimSuffix(names[i], l.k.NameSuffix)} {
				if n != names[i] && !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	// The shortest first, the name a base most likely calls it by (for
	// namesOfKind).
	shortest := 0
	for i, n := range names {
		if n != "" && (names[shortest] == "" || len(n) < len(names[shortest])) {
			shortest = i
		}
	}
	names[0], names[shortest] = names[shortest], names[0]
	for _, l := range ids.levels {
		if l.k.Namespace != "" {
			return names, nil
		}
	}
	return names, namespaces
}

// maxLooseNames bounds the names looseIDs tries for one object.
const maxLooseNames = 256

// formerIDs returns the names and namespaces res could have had when a
// patch of the root kustomization k ran, as kustomize's selection tries
// them (its name and namespace then, and its first ones). The first name
// is its name when the patch ran: as built when it ran late, else without
// k's prefix and suffix. Then: that name too, the name and namespace of
// its document in its source file, and, for a generated object, its
// generator's name and its name cut at each dash (a hash suffix, a lower
// level's suffix); its built name last when its source document is not
// found.
func (ov *overlay) formerIDs(kfile string, k *types.Kustomization, late bool, res *resource.Resource) (names, namespaces []string) {
	name := res.GetName()
	if late {
		names = append(names, name) // its name when the patch ran comes first
	}
	names = append(names, strings.TrimSuffix(strings.TrimPrefix(name, k.NamePrefix), k.NameSuffix))
	namespaces = append(namespaces, res.CurId().EffectiveNamespace())
	origin, err := res.GetOrigin()
	found := false
	switch {
	case err != nil || origin == nil || origin.Repo != "":
	case origin.ConfiguredIn != "":
		names = append(names, origin.ConfiguredBy.Name)
		for i := range len(name) {
			if name[i] == '-' {
				names = append(names, name[:i], strings.TrimPrefix(name[:i], k.NamePrefix))
			}
		}
	default:
		if src, ok := join(path.Dir(kfile), origin.Path); ok {
			if doc := pickDoc(ov.text(src), res.GetKind(), name); doc != nil {
				if md := valueAt(doc, "metadata"); md != nil {
					found = true
					names = append(names, scalarAt(md, "name"))
					namespaces = append(namespaces, resid.NewResIdWithNamespace(res.GetGvk(), scalarAt(md, "name"), scalarAt(md, "namespace")).EffectiveNamespace())
				}
			}
		}
	}
	if !late && !found {
		names = append(names, name)
	}
	if !late && k.Namespace != "" {
		namespaces = nil // before the root's namespace, an object's is not known: any
	}
	return names, namespaces
}

// describeSelector writes a patch target's fields for a message.
func describeSelector(s *types.Selector) string {
	var parts []string
	for _, f := range [][2]string{
		{"group", s.Group}, {"version", s.Version}, {"kind", s.Kind}, {"name", s.Name},
		{"namespace", s.Namespace}, {"labelSelector", s.LabelSelector}, {"annotationSelector", s.AnnotationSelector},
	} {
		if f[1] != "" {
			parts = append(parts, fmt.Sprintf("%s: %s", f[0], f[1]))
		}
	}
	if len(parts) == 0 {
		return "empty"
	}
	return strings.Join(parts, ", ")
}

// namesOfKind says which objects of the target's kind the build has, by
// the names the patch could select them by: the one closest to the
// target's name (a mistyped name, or the built name of an object the
// patch ran before the prefix of), else a few; "" when the target names
// no kind.
func (ids *formerIDsOf) namesOfKind(mode idMode, m resmap.ResMap, target *types.Selector) string {
	kind := target.Kind
	if kind == "" {
		return ""
	}
	var built, usable []string
	for _, res := range m.Resources() {
		if res.GetKind() != kind {
			continue
		}
		built = append(built, res.GetName())
		usable = append(usable, ids.get(res, mode).names[0]) // its name when the patch ran
	}
	switch {
	case len(built) == 0:
		return fmt.Sprintf("; the build has no %s", kind)
	case target.Name == "":
	case !mode.base && slices.Contains(built, target.Name) && !slices.Contains(usable, target.Name):
		return fmt.Sprintf("; %s is its built name, but the overlay's patches run before its namePrefix and nameSuffix: select it as %s", target.Name, usable[slices.Index(built, target.Name)])
	default:
		if s := checks.Closest(target.Name, usable); s != "" {
			return fmt.Sprintf("; did you mean %s %s?", kind, s)
		}
	}
	names := built
	if mode.base {
		// The names it may be selected by, the same in every overlay that
		// builds on the base (its finding is said once).
		names = usable
	}
	if len(names) > 5 {
		return fmt.Sprintf("; the build's %ss include %s and %d more", kind, strings.Join(names[:5], ", "), len(names)-5)
	}
	return fmt.Sprintf("; the build's %ss: %s", kind, strings.Join(names, ", "))
}

// labelsNote reminds what a target's labelSelector reads, when it has one.
func labelsNote(target *types.Selector) string {
	if target.LabelSelector == "" {
		return ""
	}
	return " (a labelSelector reads the object's own metadata.labels, not its selector's or its pod template's)"
}

// mappingOf returns the top mapping of a kustomization's text data; nil
// when it has none.
func mappingOf(data []byte) *yaml.Node {
	root, err := parseYAML(data)
	if err != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return root.Content[0]
}

// lineAt is the line of entry i of lines, or 1 when it is not known.
func lineAt(lines []int, i int) int {
	if i < len(lines) {
		return max(lines[i], 1)
	}
	return 1
}

// patchTargetLines returns, for the patches and patchesJson6902 fields of
// a kustomization whose top mapping is top, by index, the line of each
// entry's target the author most likely mistyped: its name, else its
// labelSelector, its annotationSelector, its kind, the target itself (the
// entry, when it has none).
func patchTargetLines(top *yaml.Node) map[string][]int {
	out := map[string][]int{}
	for _, field := range []string{"patches", "patchesJson6902"} {
		seq := valueAt(top, field)
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range seq.Content {
			out[field] = append(out[field], selectorLine(item, "target"))
		}
	}
	return out
}

// selectorLine returns the line of the selector under key of item (a
// patch's target, a replacement target's select) the author most likely
// mistyped: its name, else its labelSelector, its annotationSelector, its
// kind, the key itself; item's own line when it has no such key.
func selectorLine(item *yaml.Node, key string) int {
	t := keyAt(item, key)
	if t == nil {
		return item.Line
	}
	sel := valueAt(item, key)
	for _, k := range []string{"name", "labelSelector", "annotationSelector", "kind"} {
		if kn := keyAt(sel, k); kn != nil {
			return kn.Line
		}
	}
	return t.Line
}
