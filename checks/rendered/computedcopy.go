package rendered

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// chartTexts returns the texts of the render's chart's own templates
// (helpers included), by path, read once per render (files are its
// source's, as for literalOf).
func (pl *placed) chartTexts(files fileSet) map[string][]byte {
	if pl.texts == nil {
		pl.texts, _ = chartTemplates(files, path.Join(pl.render.Root, "templates")+"/")
	}
	return pl.texts
}

// chartLines returns chartTexts split into lines, split once per render.
func (pl *placed) chartLines(files fileSet) map[string][][]byte {
	if pl.chart != nil {
		return pl.chart
	}
	pl.chart = map[string][][]byte{}
	for p, t := range pl.chartTexts(files) {
		pl.chart[p] = bytes.SplitAfter(t, []byte("\n"))
	}
	return pl.chart
}

// chartCalls returns helperCalls of chartLines, made once per render.
func (pl *placed) chartCalls(files fileSet) map[string][]helperCall {
	if pl.calls == nil {
		pl.calls = helperCalls(pl.chartLines(files))
	}
	return pl.calls
}

// labelParents are the mappings whose entries fixes copy from elsewhere
// in the object: a workload's labels into its pod template, a selector's
// into a spread constraint.
var labelParents = []string{"labels", "matchLabels"}

// computedCopy is a value a fix writes again whose original the chart
// computes: the line of the chart's templates that writes it with an
// action.
type computedCopy struct {
	// key is the key the copy is written under (a label's own), or ""
	// for a value the fix reads (Fix.Reads) and writes under a key of its
	// own (a container port, named again as a probe's port).
	key, value string
	// srcKey is the key that line writes (the label's, or the read's:
	// containerPort).
	srcKey string
	from   Location
	text   string // that line, its ending cut
	where  string // file:line of that line in its chart, for messages
}

// computedCopies returns the values a fix copies whose originals in
// document doc lines of the chart's templates compute with an action
// (`app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}`, `-
// containerPort: {{ .Values.port }}`): the label entries its edits set
// (labelsSet) that the document holds elsewhere and no line writes as it
// is, and the scalars at the paths it reads (reads, its Fix.Reads: a
// port item's number and name). Written as rendered, a copy would keep
// this render's value when the chart's next version, or a release's
// values, change the original (a probe on a port the container no longer
// listens on).
func (pl *placed) computedCopies(templates map[string][][]byte, doc int, ops []edit.Op, reads []manifest.Path) []computedCopy {
	var out []computedCopy
	computed := func(key, srcKey, value string, loc Location) (computedCopy, bool) {
		lines := templates[loc.File]
		if loc.Line < 1 || loc.Line > len(lines) {
			return computedCopy{}, false
		}
		t := strings.TrimRight(string(lines[loc.Line-1]), "\r\n")
		where := fmt.Sprintf("%s:%d", strings.TrimPrefix(loc.File, pl.render.Root+"/"), loc.Line)
		return computedCopy{key, value, srcKey, loc, t, where}, strings.Contains(t, "{{")
	}
	for _, l := range labelsSet(ops) {
		var found []computedCopy
		for _, loc := range pl.writersOf(doc, l[0], l[1]) {
			c, ok := computed(l[0], l[0], l[1], loc)
			if !ok {
				found = nil // written as it is somewhere: a copy as rendered is that
				break
			}
			found = append(found, c)
		}
		if len(found) > 0 {
			out = append(out, found[0])
		}
	}
	root := pl.renderedDoc(doc)
	for _, read := range reads {
		segs, nodes := yamlpath.Walk(root, read)
		n := nodes[len(nodes)-1]
		type scalar struct {
			key string
			n   *yaml.Node
		}
		scalars := map[string]scalar{} // the read's scalars by path: itself, or a mapping's (a port's number and name)
		switch {
		case n == nil || len(segs) == 0:
		case n.Kind == yaml.ScalarNode:
			scalars[FormatPath(segs)] = scalar{segs[len(segs)-1].Key, n}
		case n.Kind == yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				k := n.Content[j].Value
				scalars[FormatPath(append(slices.Clip(segs), Segment{Key: k, Index: -1}))] = scalar{k, n.Content[j+1]}
			}
		}
		for _, p := range slices.Sorted(maps.Keys(scalars)) {
			v := scalars[p]
			if v.n.Kind != yaml.ScalarNode || v.key == "" {
				continue
			}
			if loc, ok := pl.ownTemplateLine(doc, p); ok {
				if c, ok := computed("", v.key, v.n.Value, loc); ok {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// labelsSet returns the label entries (key and scalar value) the Set and
// Append edits ops write: an entry of a labels or matchLabels mapping,
// set alone or inside the value written (a spread constraint's
// labelSelector).
func labelsSet(ops []edit.Op) [][2]string {
	var out [][2]string
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if depth > 32 {
			return
		}
		if n.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(n.Content); j += 2 {
				k, v := n.Content[j], n.Content[j+1]
				if slices.Contains(labelParents, k.Value) && v.Kind == yaml.MappingNode {
					for e := 0; e+1 < len(v.Content); e += 2 {
						if v.Content[e+1].Kind == yaml.ScalarNode {
							out = append(out, [2]string{v.Content[e].Value, v.Content[e+1].Value})
						}
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	for _, op := range ops {
		var n yaml.Node
		if (op.Action != edit.Set && op.Action != edit.Append) || yaml.Unmarshal([]byte(op.Value), &n) != nil || len(n.Content) != 1 {
			continue
		}
		v := n.Content[0]
		if op.Action == edit.Set && len(op.Path) >= 2 && slices.Contains(labelParents, op.Path[len(op.Path)-2]) && v.Kind == yaml.ScalarNode {
			out = append(out, [2]string{op.Path[len(op.Path)-1], v.Value})
			continue
		}
		walk(v, 0)
	}
	return out
}

// templateVariable matches a template variable other than the root ($).
var templateVariable = regexp.MustCompile(`\$[A-Za-z_]`)

// keyValueLine matches a template line that writes one key (as a
// sequence item's first, or not) and, as its value, the rest of the
// line: the key, and the value.
var keyValueLine = regexp.MustCompile(`^(?:-\s+)?([^\s:{}]+):\s+(\S.*)$`)

// heldAt is an inserted line of a change: the change's index and the
// line's within its text.
type heldAt struct{ change, line int }

// copiesHeld returns, for each of copies (by index), the inserted lines
// of changes that write it as rendered: a line `key: value` with no
// action, whose value is the copy's, and whose key is the copy's when
// it has one.
func copiesHeld(changes []edit.Change, copies []computedCopy) map[int][]heldAt {
	held := map[int][]heldAt{}
	for ci, c := range changes {
		for i, l := range strings.SplitAfter(c.Text, "\n") {
			t := strings.TrimSpace(l)
			var n yaml.Node
			if t == "" || strings.Contains(t, "{{") || yaml.Unmarshal([]byte(t), &n) != nil || len(n.Content) != 1 ||
				n.Content[0].Kind != yaml.MappingNode || len(n.Content[0].Content) != 2 {
				continue
			}
			k, v := n.Content[0].Content[0], n.Content[0].Content[1]
			for j, cp := range copies {
				if v.Kind == yaml.ScalarNode && v.Value == cp.value && (cp.key == "" || k.Value == cp.key) {
					held[j] = append(held[j], heldAt{ci, i})
				}
			}
		}
	}
	return held
}

// writeComputed writes, in changes of template file, each inserted line
// that writes one of copies as rendered (`app.kubernetes.io/version:
// "2.0"`, `port: 8080`) with the value of the line of the chart that
// computes it (`app.kubernetes.io/version: {{ .Chart.AppVersion | quote
// }}`, `port: {{ .Values.port }}`): when that line writes the copy's
// source key and its value and nothing else (no block, no trimming, no
// variable but the root), and its dot and the copy's are the root
// wherever they render (rootDot). A copy of a read value is the inserted
// line holding that value, when one line alone does. Copies it cannot
// write so stay as they are (computedBoundLines then withholds the fix).
func writeComputed(changes []edit.Change, file string, copies []computedCopy, templates map[string][][]byte, calls map[string][]helperCall) []edit.Change {
	out := slices.Clone(changes)
	for j, held := range copiesHeld(out, copies) {
		cp := copies[j]
		src := keyValueLine.FindStringSubmatch(strings.TrimSpace(cp.text))
		if len(held) > 1 && cp.key == "" || src == nil || src[1] != cp.srcKey || strings.Contains(cp.text, "{{-") || strings.Contains(cp.text, "-}}") ||
			len(blockActions([]byte(cp.text))) > 0 || templateVariable.MatchString(cp.text) || !rootDot(templates, calls, cp.from.File, cp.from.Line, 3) {
			continue
		}
		for _, h := range held {
			c := &out[h.change]
			if !rootDot(templates, calls, file, c.StartLine, 3) {
				continue
			}
			lines := strings.SplitAfter(c.Text, "\n")
			l := lines[h.line]
			body := strings.TrimRight(l, "\r\n")
			key, _, _ := strings.Cut(body, ":")
			lines[h.line] = key + ": " + src[2] + l[len(body):]
			c.Text = strings.Join(lines, "")
		}
	}
	return out
}

// computedBoundLines says why a fix cannot be written as the line
// changes cs of template tmpl when one of the lines they add (addedLines)
// still writes, as rendered, a value the chart computes (see
// writeComputed). "" when none does.
func computedBoundLines(cs []edit.Change, tmpl []byte, copies []computedCopy) string {
	added := addedLines(cs, tmpl)
	for j := range copies {
		if len(copiesHeld(added, copies[j:j+1])) > 0 {
			return computedWhy(copies[j], "a template")
		}
	}
	return ""
}

// computedBound says why a fix cannot be written into a chart's values
// file when one of its values edits writes, as rendered, a value the
// chart computes (see computedCopies). "" when none does.
func computedBound(ops []edit.Op, copies []computedCopy) string {
	for _, cp := range copies {
		if _, ok := editedScalar(ops, func(v string) bool { return v == cp.value }); ok {
			return computedWhy(cp, "values.yaml")
		}
	}
	return ""
}

// computedWhy is the reason a copy written as rendered into where is
// withheld.
func computedWhy(cp computedCopy, where string) string {
	return fmt.Sprintf("its edit writes %s: %q as rendered, which the chart computes (%s): in %s it would keep that value when the chart or its values change", cp.srcKey, cp.value, cp.where, where)
}
