package rendered

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// inlineBlock is a strategic-merge patch written in a kustomization's
// patches: entry as a literal block: which entry, and the lines of the
// kustomization its text takes.
type inlineBlock struct {
	field      string // patches or patchesJson6902
	index      int
	node       *yaml.Node // the patch: value
	start, end int        // the kustomization's lines of its text
}

// inlineBlockAt returns the literal patch block of kustomization data
// whose text takes line.
func inlineBlockAt(data []byte, line int) (inlineBlock, bool) {
	top := yamlpath.ParseDoc(data)
	for _, field := range []string{"patches", "patchesJson6902"} {
		seq := mapValue(top, field)
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		for i, item := range seq.Content {
			n := mapValue(item, "patch")
			if n == nil || n.Kind != yaml.ScalarNode || n.Style&yaml.LiteralStyle == 0 {
				continue
			}
			b := inlineBlock{field: field, index: i, node: n, start: n.Line + 1}
			b.end = b.start + strings.Count(strings.TrimSuffix(n.Value, "\n"), "\n")
			if line >= b.start && line <= b.end {
				return b, true
			}
		}
	}
	return inlineBlock{}, false
}

// inlinePatchEdit returns f's fix as an edit of the text of the patch a
// kustomization writes in its own patches: entry, when that patch sets
// what every edit changes (each edit's longest prefix with a location has
// one in that text): the patch is written again with the edits made, as
// the partial object it is (a JSON 6902 patch: the value of the operation
// that writes what an edit sets), and stays where the build applies it.
// ok is false otherwise (edits that reach past the patch, a JSON 6902
// operation that does not write exactly that value): the fix is then a
// patch appended after it.
func (pl *placed) inlinePatchEdit(files fileSet, f checks.Finding) (placement, bool) {
	doc, root := pl.findingDoc(f)
	return pl.inlinePatchOf(files, doc, root, f.Fix.Edits)
}

// inlinePatchOf returns edits of rendered document doc (parsed: root) as
// an edit of the text of the patch a kustomization writes in its own
// patches: entry (see inlinePatchEdit).
func (pl *placed) inlinePatchOf(files fileSet, doc int, root *yaml.Node, edits []edit.Op) (placement, bool) {
	if root == nil || len(edits) == 0 {
		return placement{}, false
	}
	// Each edit's longest prefix with a location must have its first in
	// the patch's text (a key the patch sets; a base line comes first for
	// a mapping both write), all in one patch.
	var founds []Location
	for _, op := range edits {
		segs, _ := yamlpath.Walk(root, op.Path)
		found := false
		for n := len(segs); n >= 0 && !found; n-- {
			locs := pl.render.Map(doc)[FormatPath(segs[:n])]
			if len(locs) == 0 {
				continue
			}
			if locs[0].Kind != InlinePatch || locs[0].Line <= 0 {
				return placement{}, false // set by the base or another patch, not this text
			}
			founds, found = append(founds, locs[0]), true
		}
		if !found {
			return placement{}, false
		}
	}
	at := founds[0]
	data, ok := files.file(at.File)
	if !ok {
		return placement{}, false
	}
	b, ok := inlineBlockAt(data, at.Line)
	if !ok {
		return placement{}, false
	}
	for _, l := range founds {
		if l.File != at.File || l.Line < b.start || l.Line > b.end {
			return placement{}, false // another patch of the kustomization
		}
	}
	text := []byte(b.node.Value)
	docs := yamlpath.ParseDocs(text, 1000)
	target, tdoc := (*yaml.Node)(nil), -1
	for i, d := range docs {
		if d != nil && d.Line <= at.Line-b.start+1 {
			target, tdoc = d, i
		}
	}
	var ops []edit.Op
	var from [][]string
	for _, op := range edits {
		var p []string
		switch {
		case target != nil && target.Kind == yaml.MappingNode:
			p, ok = samePath(root, target, op.Path)
		case target != nil && target.Kind == yaml.SequenceNode:
			p, ok = jsonOpValue(target, op)
		default:
			ok = false
		}
		if !ok {
			return placement{}, false
		}
		t := op
		t.Path = p
		ops = append(ops, t)
		from = append(from, op.Path)
	}
	next, err := edit.Apply(text, tdoc, ops)
	if err != nil {
		return placement{}, false
	}
	value := string(next)
	header := "|"
	if !strings.HasSuffix(b.node.Value, "\n") {
		header, value = "|-", strings.TrimSuffix(value, "\n")
	}
	block := header + "\n" + indentLines(value, "  ") + "\n"
	set := edit.Op{Action: edit.Set, Path: []string{b.field, strconv.Itoa(b.index), "patch"}, Value: block}
	line := b.start - 1 + yamlpath.NearestLine(target, ops[0].Path)
	return placement{file: at.File, doc: 0, line: line, edits: []edit.Op{set}, from: from, inline: true,
		note: fmt.Sprintf(" (in the patch %s writes)", path.Base(at.File))}, true
}

// jsonOpValue returns, for op, an edit of a rendered document that sets
// one value, the path in ops (a JSON 6902 patch's operations) of the
// value of the operation that adds or replaces exactly that value: the
// operation is kept and only its value changes. ok is false for any
// other edit, or when no operation writes that path.
func jsonOpValue(ops *yaml.Node, op edit.Op) ([]string, bool) {
	if op.Action != edit.Set {
		return nil, false
	}
	want := pointer(op.Path)
	for i, item := range ops.Content {
		kind, at := mapValue(item, "op"), mapValue(item, "path")
		if kind == nil || at == nil || (kind.Value != "replace" && kind.Value != "add") || at.Value != want || mapValue(item, "value") == nil {
			continue
		}
		return []string{strconv.Itoa(i), "value"}, true
	}
	return nil, false
}

// combineInlinePatches gives the verified fixes that write one patch of a
// kustomization's own text again (inlinePatchEdit) one edit that makes
// all their changes: each was verified alone, and each writes the whole
// patch, so applied together the last would undo the others. Every one
// of those fixes then carries the edit of all (the fix engine writes an
// identical edit once), and keeps its finding's line.
func (pl *placed) combineInlinePatches(src *source, kept []candidate) {
	for _, idx := range inlineGroups(kept) {
		if len(idx) < 2 {
			continue
		}
		whole, ok := pl.inlineTogether(src, kept, idx)
		if !ok {
			continue
		}
		for _, i := range idx {
			pc := whole
			pc.line, pc.from = kept[i].place.line, kept[i].place.from
			kept[i].place = pc
		}
	}
}

// inlineGroups returns, in order, the indexes of the candidates that
// write a patch of a kustomization's own text again (inlinePatchEdit),
// those of one patch and one rendered document together.
func inlineGroups(cands []candidate) [][]int {
	at := map[string]int{}
	var out [][]int
	for i, c := range cands {
		if !c.place.inline {
			continue
		}
		k := fmt.Sprint(c.doc, c.place.file, c.place.edits[0].Path)
		j, ok := at[k]
		if !ok {
			j, at[k] = len(out), len(out)
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	return out
}

// inlineTogether is the one edit that makes the changes of the candidates
// idx of cands, which write one patch of a kustomization's own text
// again (an inlineGroups group).
func (pl *placed) inlineTogether(src *source, cands []candidate, idx []int) (placement, bool) {
	if len(idx) == 1 {
		return cands[idx[0]].place, true
	}
	lists := make([][]edit.Op, len(idx))
	for j, i := range idx {
		lists[j] = cands[i].edits
	}
	first := cands[idx[0]]
	return pl.inlinePatchOf(src, first.doc, pl.renderedDoc(first.doc), edit.Union(lists...))
}

// indentLines puts prefix before every line of s that is not empty.
func indentLines(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}
