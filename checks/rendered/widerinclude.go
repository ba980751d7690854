package rendered

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// widerInclude places f's fix, which only adds keys to a pod template's
// labels whose entries start with what one include writes (`{{- include
// "app.selectorLabels" . | nindent 8 }}`), as that include line naming
// the helper the workload's own labels include (`{{- include
// "app.labels" . | nindent 4 }}`), which is what `helm create` writes in
// the pod template: when both lines pass the same argument with the same
// dot, and the workload's helper writes every entry the first one does
// and every key the fix adds, with the value it adds. What each helper
// writes is read from the render's map (the keys located in its define,
// or in one it includes); keys the pod template's other lines write
// (podLabels) must not be among the workload helper's. Keys that helper
// writes beyond the fix's come along, and the description says which.
// VerifyFixes still renders the chart again with the line changed.
func (pl *placed) widerInclude(files fileSet, f checks.Finding) (placement, bool) {
	r := pl.render
	doc := f.Object.Doc
	ops := f.Fix.Edits
	if doc < 0 || doc >= len(r.Documents) || doc >= len(r.Maps) || len(ops) == 0 || len(ops[0].Path) < 2 {
		return placement{}, false
	}
	parent := ops[0].Path[:len(ops[0].Path)-1]
	if parent[len(parent)-1] != "labels" || slices.Equal(parent, []string{"metadata", "labels"}) {
		return placement{}, false
	}
	for _, op := range ops {
		if op.Action != edit.Set || len(op.Path) != len(parent)+1 || !slices.Equal(op.Path[:len(parent)], parent) {
			return placement{}, false
		}
	}
	text := r.Documents[doc].YAML
	fixed, err := edit.Apply(text, 0, ops)
	if err != nil {
		return placement{}, false
	}
	root := pl.renderedDoc(doc)
	_, nodes := yamlpath.Walk(root, parent)
	pod := nodes[len(nodes)-1]
	_, fixedNodes := yamlpath.Walk(yamlpath.ParseDoc(fixed), parent)
	had, ok1 := entries(pod)
	want, ok2 := entries(fixedNodes[len(fixedNodes)-1])
	if !ok1 || !ok2 {
		return placement{}, false
	}
	added := map[string]string{}
	for k, v := range want {
		if old, ok := had[k]; ok && old != v {
			return placement{}, false
		} else if !ok {
			added[k] = v
		}
	}
	if len(added) == 0 || len(want) != len(had)+len(added) {
		return placement{}, false
	}
	lit := pl.literalOf(files, doc)
	rendered := bytes.SplitAfter(text, []byte("\n"))
	workload := []string{"metadata", "labels"}
	_, wnodes := yamlpath.Walk(root, workload)
	at, narrow, ok1 := includeUnder(files, lit, rendered, pod)
	wat, wide, ok2 := includeUnder(files, lit, rendered, wnodes[len(wnodes)-1])
	if !ok1 || !ok2 || at.file != wat.file || narrow == wide || pl.vendored(at.file) {
		return placement{}, false
	}
	templates := pl.chartLines(files)
	tmpl := templates[at.file]
	if at.line > len(tmpl) || wat.line > len(tmpl) {
		return placement{}, false // not one of the chart's own templates
	}
	line, wline := string(tmpl[at.line-1]), string(tmpl[wat.line-1])
	if !sameArgument(line, wline) || !slices.Equal(blockStack(tmpl, at.line, true), blockStack(tmpl, wat.line, true)) {
		return placement{}, false
	}
	// The templates whose lines are above (at.file among them), as text.
	texts := pl.chartTexts(files)
	narrowDefines, _ := helperClosure(texts, narrow) // a library chart's helper they include writes no entry read here
	wideDefines, _ := helperClosure(texts, wide)
	own := pl.helperEntries(templates, doc, parent, pod, narrowDefines)
	all := pl.helperEntries(templates, doc, workload, wnodes[len(wnodes)-1], wideDefines)
	if len(own) == 0 || !startsWith(pod, own) || !holds(all, own) || !holds(all, added) {
		return placement{}, false
	}
	var extra []string
	for _, k := range slices.Sorted(maps.Keys(all)) {
		_, mine := own[k]
		_, fixes := added[k]
		if _, other := had[k]; other && !mine {
			return placement{}, false // the pod template's other lines write it too
		}
		if !mine && !fixes {
			extra = append(extra, k)
		}
	}
	changed := strings.Replace(line, strconv.Quote(narrow), strconv.Quote(wide), 1)
	lines := []edit.Change{{StartLine: at.line, EndLine: at.line, Text: changed}}
	if _, err := edit.ApplyAllChanges(contents(files, at.file), lines); err != nil {
		return placement{}, false
	}
	note := fmt.Sprintf(` (by including %q there, as the workload's labels do, in place of %q`, wide, narrow)
	if len(extra) > 0 {
		note += fmt.Sprintf("; it adds %s as well", strings.Join(extra, ", "))
	}
	return placement{file: at.file, line: at.line, lines: lines, note: note + ")"}, true
}

// includeUnder returns the include line that writes entries of mapping m
// (`labels:`), and the helper it names: the one line, among the lines of
// actions alone right below m's literal key line (above any blank lines
// a helper may start with), that includes a helper indented to m's
// entries.
func includeUnder(files fileSet, lit literalLines, rendered [][]byte, m *yaml.Node) (templateLine, string, bool) {
	if m == nil || m.Kind != yaml.MappingNode || m.Line < 2 || m.Line-1 > len(rendered) {
		return templateLine{}, "", false
	}
	k := m.Line - 1
	for k > 1 && len(bytes.TrimSpace(rendered[k-1])) == 0 {
		k--
	}
	key, ok := lit[k]
	if !ok || !strings.HasSuffix(strings.TrimSpace(string(rendered[k-1])), ":") {
		return templateLine{}, "", false
	}
	tmpl := bytes.SplitAfter(contents(files, key.file), []byte("\n"))
	var at templateLine
	var name string
	for l := key.line + 1; l <= len(tmpl); l++ {
		t := strings.TrimSpace(string(tmpl[l-1]))
		if !strings.HasPrefix(t, "{{") || !strings.HasSuffix(t, "}}") {
			break
		}
		call := includeCall.FindStringSubmatch(t)
		if n, ok := indentAction(t); call == nil || !ok || n != m.Column-1 {
			continue
		}
		if name != "" {
			return templateLine{}, "", false // two helpers write the entries
		}
		at, name = templateLine{key.file, l}, call[1]
	}
	return at, name, name != ""
}

// helperEntries returns the entries of mapping m, at key path p of
// document doc, that a helper wrote: those the render's map locates on a
// line of one of defines (the helper's and those it includes, see
// helperClosure; with templates, the chart's own templates' lines by
// path).
func (pl *placed) helperEntries(templates map[string][][]byte, doc int, p []string, m *yaml.Node, defines map[string]string) map[string]string {
	segs := make([]Segment, 0, len(p)+1)
	for _, k := range p {
		segs = append(segs, Segment{Key: k, Index: -1})
	}
	out := map[string]string{}
	for j := 0; j+1 < len(m.Content); j += 2 {
		k, v := m.Content[j], m.Content[j+1]
		loc, ok := pl.ownTemplateLine(doc, FormatPath(append(slices.Clip(segs), Segment{Key: k.Value, Index: -1})))
		if _, helper := defines[definedIn(templates[loc.File], loc.Line)]; ok && helper && v.Kind == yaml.ScalarNode {
			out[k.Value] = v.Value
		}
	}
	return out
}

// definedIn returns the name of the define line (1-based) of lines is
// in, "" for none.
func definedIn(lines [][]byte, line int) string {
	for _, l := range blockStack(lines, line, true) {
		if m := defineOpen.FindSubmatch(lines[l-1]); m != nil {
			return string(m[1])
		}
	}
	return ""
}

// entries returns the entries of a mapping node whose values are all
// scalars, by key, as their text.
func entries(m *yaml.Node) (map[string]string, bool) {
	if m == nil || m.Kind != yaml.MappingNode || len(m.Content) == 0 {
		return nil, false
	}
	out := map[string]string{}
	for j := 0; j+1 < len(m.Content); j += 2 {
		k, v := m.Content[j], m.Content[j+1]
		if v.Kind != yaml.ScalarNode || k.Kind != yaml.ScalarNode {
			return nil, false
		}
		if _, dup := out[k.Value]; dup {
			return nil, false
		}
		out[k.Value] = v.Value
	}
	return out, true
}

// startsWith reports whether mapping m's first entries are own's.
func startsWith(m *yaml.Node, own map[string]string) bool {
	if len(m.Content) < 2*len(own) {
		return false
	}
	for j := 0; j < 2*len(own); j += 2 {
		if v, ok := own[m.Content[j].Value]; !ok || v != m.Content[j+1].Value {
			return false
		}
	}
	return true
}

// holds reports whether every entry of sub is in e, with the same value.
func holds(e, sub map[string]string) bool {
	for k, v := range sub {
		if w, ok := e[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// sameArgument reports whether two include lines pass their helpers the
// same argument.
func sameArgument(a, b string) bool {
	ua, ub := includeCall.FindStringSubmatch(strings.TrimSpace(a)), includeCall.FindStringSubmatch(strings.TrimSpace(b))
	return ua != nil && ub != nil && ua[2] == ub[2]
}
