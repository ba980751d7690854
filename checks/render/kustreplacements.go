package render

import (
	"fmt"
	"path"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"
)

// unmatchedReplacementsOf returns the targets of the replacements of
// level l whose select selects no object of m: kustomize copies the
// source's value into nothing and says nothing (a source that selects
// nothing, or a field path a selected target lacks, fails the build).
//
// kustomize selects a replacement's targets by every name, namespace and
// kind an object has had in the build so far, so a target is tried on
// every name the tree's prefixes and suffixes could have given an object,
// as a base's patch is (idMode.base): a target that selected is never
// reported. Its reject list is not read: a target whose select selects
// only what it rejects changes nothing either, but may be written so for
// objects a later version of the base has.
func (ids *formerIDsOf) unmatchedReplacementsOf(l level, top *yaml.Node, m resmap.ResMap) []rendered.Unmatched {
	mode := idMode{base: true}
	var out []rendered.Unmatched
	for _, r := range ids.ov.replacementsOf(l, top) {
		for j, t := range r.Targets {
			if t == nil || t.Select == nil {
				continue // the build refused it: not reached
			}
			if ids.selectAny(mode, t.Select, m) {
				continue
			}
			out = append(out, rendered.Unmatched{RuleID: checks.ReplacementUnmatched, Kustomization: l.file, Problem: rendered.Problem{
				File: r.file, Line: lineAt(r.lines, j),
				Message: fmt.Sprintf("targets[%d] of %s (select %s) selects no object of the build: kustomize replaces nothing there and says nothing, so %s gets no value from %s%s%s",
					j, r.name, describeSelector(t.Select), fieldPaths(t), describeSource(r.Replacement), ids.namesOfKind(mode, m, t.Select), labelsNote(t.Select)),
			}})
		}
	}
	return out
}

// replacementAt is a replacement of a kustomization, with where its
// targets are written.
type replacementAt struct {
	types.Replacement
	// file is the file its targets are written in: the kustomization, or
	// the file its entry's path names.
	file string
	// name is how a message names it: replacements[1] of the
	// kustomization, or the replacement [0] of its file.
	name string
	// lines are the lines of its targets' selects, by index (selectorLine).
	lines []int
}

// replacementsOf returns the replacements of kustomization l (its text's
// top mapping top), inline or in the files their entries name, read as
// kustomize reads them (a file holds one replacement or a list).
func (ov *overlay) replacementsOf(l level, top *yaml.Node) []replacementAt {
	var entries []*yaml.Node
	if seq := valueAt(top, "replacements"); seq != nil && seq.Kind == yaml.SequenceNode {
		entries = seq.Content
	}
	var out []replacementAt
	for i, rf := range l.k.Replacements {
		if rf.Path == "" {
			r := replacementAt{Replacement: rf.Replacement, file: l.file, name: fmt.Sprintf("replacements[%d]", i)}
			if i < len(entries) {
				r.lines = targetLines(entries[i])
			}
			out = append(out, r)
			continue
		}
		f, ok := join(path.Dir(l.file), rf.Path)
		if !ok {
			continue // the build read it: not reached
		}
		out = append(out, replacementsInFile(f, ov.text(f))...)
	}
	return out
}

// replacementsInFile returns the replacements of file f (its text data),
// which holds one replacement or a list of them; none when kustomize
// could not read it (then the build failed: not reached).
func replacementsInFile(f string, data []byte) []replacementAt {
	root, err := parseYAML(data)
	if err != nil || len(root.Content) == 0 {
		return nil
	}
	doc := root.Content[0]
	switch doc.Kind {
	case yaml.SequenceNode:
		var rs []types.Replacement
		if sigsyaml.Unmarshal(data, &rs) != nil {
			return nil
		}
		out := make([]replacementAt, len(rs))
		for i, r := range rs {
			out[i] = replacementAt{Replacement: r, file: f, name: fmt.Sprintf("the replacement [%d] of this file", i)}
			if i < len(doc.Content) {
				out[i].lines = targetLines(doc.Content[i])
			}
		}
		return out
	case yaml.MappingNode:
		var r types.Replacement
		if sigsyaml.Unmarshal(data, &r) != nil {
			return nil
		}
		return []replacementAt{{Replacement: r, file: f, name: "the replacement of this file", lines: targetLines(doc)}}
	}
	return nil
}

// targetLines returns the lines of the selects of replacement entry's
// targets, by index.
func targetLines(entry *yaml.Node) []int {
	seq := valueAt(entry, "targets")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	lines := make([]int, len(seq.Content))
	for i, t := range seq.Content {
		lines[i] = selectorLine(t, "select")
	}
	return lines
}

// fieldPaths names the fields a replacement target writes.
func fieldPaths(t *types.TargetSelector) string {
	if len(t.FieldPaths) == 0 {
		return types.DefaultReplacementFieldPath
	}
	return strings.Join(t.FieldPaths, ", ")
}

// describeSource names where a replacement's value comes from.
func describeSource(r types.Replacement) string {
	switch {
	case r.SourceValue != nil:
		return fmt.Sprintf("its sourceValue %q", *r.SourceValue)
	case r.Source == nil:
		return "its source"
	}
	field := r.Source.FieldPath
	if field == "" {
		field = types.DefaultReplacementFieldPath
	}
	return fmt.Sprintf("%s %s's %s", r.Source.Kind, r.Source.Name, field)
}
