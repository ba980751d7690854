package rendered

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// instanceLabels are the label keys Helm's conventions give the release's
// name as their value.
var instanceLabels = []string{"app.kubernetes.io/instance", "release"}

// tplValue returns value (YAML), an edit of document doc written into a
// values key the chart renders through tpl, with each mapping entry whose
// value the render took from the release's name or the chart's name
// written as the template that wrote it, so that it holds every
// release's own: the action on the line of the chart's own templates that
// writes the same key and value in the render (`{{ include "web.name" .
// }}`), when that line's dot is the chart's root wherever it renders
// (rootDot), as it is inside tpl; else, for an instance label holding the
// release's name, {{ .Release.Name }}. Other entries stay as they are (the
// release and chart name checks then withhold the fix).
func (pl *placed) tplValue(files fileSet, doc int, value string) (string, bool) {
	var n yaml.Node
	if value == "" || yaml.Unmarshal([]byte(value), &n) != nil {
		return value, value == ""
	}
	release := pl.src.opts.WithDefaults().ReleaseName
	chart := readChartDeps(contents(files, path.Join(pl.render.Root, "Chart.yaml"))).Name
	templates, calls := pl.chartLines(files), pl.chartCalls(files)
	changed := false
	var walk func(*yaml.Node)
	walk = func(m *yaml.Node) {
		if m.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(m.Content); i += 2 {
				k, v := m.Content[i], m.Content[i+1]
				if v.Kind != yaml.ScalarNode || !(releaseNamed(release)(v.Value) || v.Value == chart && chart != "") {
					continue
				}
				action, ok := pl.actionWriting(templates, calls, doc, k.Value, v.Value)
				if !ok && v.Value == release && slices.Contains(instanceLabels, k.Value) {
					action, ok = ".Release.Name", true
				}
				if ok {
					v.Value, v.Tag, v.Style = "{{ "+action+" }}", "!!str", yaml.SingleQuotedStyle
					changed = true
				}
			}
		}
		for _, c := range m.Content {
			walk(c)
		}
	}
	walk(&n)
	if !changed {
		return value, true
	}
	out, err := yaml.Marshal(&n)
	return string(out), err == nil
}

// valueAction matches a template line that writes one key's whole value
// with one action: the key, and the action (an include or template of a
// helper with the dot, or the release's name).
var valueAction = regexp.MustCompile(`^\s*(?:-\s+)?([^\s:{}]+):\s*\{\{-?\s*((?:include|template)\s+"[^"]+"\s+\.|\.Release\.Name)\s*-?\}\}\s*$`)

// actionWriting returns the action of the line of templates (the chart's
// own, their lines by path) that writes key with value in document doc,
// when its dot is the root there.
func (pl *placed) actionWriting(templates map[string][][]byte, calls map[string][]helperCall, doc int, key, value string) (string, bool) {
	for _, loc := range pl.writersOf(doc, key, value) {
		lines := templates[loc.File]
		if loc.Line > len(lines) {
			continue
		}
		m := valueAction.FindStringSubmatch(string(lines[loc.Line-1]))
		if m != nil && m[1] == key && (m[2] == ".Release.Name" || rootDot(templates, calls, loc.File, loc.Line, 3)) {
			return m[2], true
		}
	}
	return "", false
}

// writersOf returns the lines of the chart's own templates that write
// key with the scalar value anywhere in document doc, in the document's
// order.
func (pl *placed) writersOf(doc int, key, value string) []Location {
	root := pl.renderedDoc(doc)
	if root == nil {
		return nil
	}
	var found []Location
	var walk func(n *yaml.Node, p []Segment)
	walk = func(n *yaml.Node, p []Segment) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, p)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				q := append(slices.Clip(p), Segment{Key: k.Value, Index: -1})
				if k.Value == key && v.Kind == yaml.ScalarNode && v.Value == value {
					if loc, ok := pl.ownTemplateLine(doc, FormatPath(q)); ok {
						found = append(found, loc)
					}
				}
				walk(v, q)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, append(slices.Clip(p), Segment{Index: i}))
			}
		}
	}
	walk(root, nil)
	return found
}

// defineOpen matches the action that opens a named template.
var defineOpen = regexp.MustCompile(`\{\{-?\s*define\s+"([^"]+)"`)

// rootDot reports whether the dot on line (1-based) of file, one of
// templates, is the chart's root wherever it renders: the line is in no
// block that sets the dot, or only in a define that every include or
// template of it among templates (calls, helperCalls of templates)
// passes the root (the dot where that is so, or $ outside any define),
// looked through depth defines at most.
func rootDot(templates map[string][][]byte, calls map[string][]helperCall, file string, line, depth int) bool {
	lines := templates[file]
	st := blockStack(lines, line, true)
	if len(st) == 0 {
		return true
	}
	m := defineOpen.FindSubmatch(lines[st[0]-1])
	if len(st) != 1 || m == nil || depth == 0 {
		return false // a with, range or block sets it, or defines nest too deep
	}
	uses := calls[string(m[1])]
	for _, c := range uses {
		switch {
		case c.arg == "." && rootDot(templates, calls, c.file, c.line, depth-1):
		case c.arg == "$" && !inDefine(templates[c.file], c.line):
		default:
			return false
		}
	}
	return len(uses) > 0
}

// helperCall is an include or template of a named helper: its file, its
// line (1-based) and the argument it passes.
type helperCall struct {
	file string
	line int
	arg  string
}

// helperCalls indexes the includes and templates of templates by the
// helper they name, so that rootDot reads each line once per chart, not
// once per question (fix --all on grafana's charts spent half its time
// matching every template line again for each).
func helperCalls(templates map[string][][]byte) map[string][]helperCall {
	out := map[string][]helperCall{}
	for f, ls := range templates {
		for i, l := range ls {
			for _, u := range helperUse.FindAllSubmatch(l, -1) {
				name := string(u[1])
				out[name] = append(out[name], helperCall{file: f, line: i + 1, arg: strings.TrimRight(string(u[2]), "-}")})
			}
		}
	}
	return out
}

// inDefine reports whether line (1-based) of lines is inside a define.
func inDefine(lines [][]byte, line int) bool {
	for _, l := range blockStack(lines, line, true) {
		if defineOpen.Match(lines[l-1]) {
			return true
		}
	}
	return false
}
