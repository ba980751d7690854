package rendered

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/edit"
)

// chartLines returns the lines of the render's chart's own templates
// (helpers included), by path, read once per render (files are its
// source's, as for literalOf).
func (pl *placed) chartLines(files fileSet) map[string][][]byte {
	if pl.chart != nil {
		return pl.chart
	}
	texts, _ := chartTemplates(files, path.Join(pl.render.Root, "templates")+"/")
	pl.chart = map[string][][]byte{}
	for p, t := range texts {
		pl.chart[p] = bytes.SplitAfter(t, []byte("\n"))
	}
	return pl.chart
}

// labelParents are the mappings whose entries fixes copy from elsewhere
// in the object: a workload's labels into its pod template, a selector's
// into a spread constraint.
var labelParents = []string{"labels", "matchLabels"}

// computedCopy is a label entry a fix writes whose value the chart
// computes: the line of the chart's templates that writes the same key
// and value elsewhere in the document with an action.
type computedCopy struct {
	key, value string
	from       Location
	text       string // that line, its ending cut
	where      string // file:line of that line in its chart, for messages
}

// computedCopies returns the label entries ops set (a scalar under labels
// or matchLabels) that document doc holds elsewhere written only by lines
// of the chart's templates with an action (`app.kubernetes.io/version: {{
// .Chart.AppVersion | quote }}`): written as rendered, a copy would keep
// this render's value when the chart's next version, or another
// release's values, change the original.
func (pl *placed) computedCopies(templates map[string][][]byte, doc int, ops []edit.Op) []computedCopy {
	var out []computedCopy
	for _, op := range ops {
		if op.Action != edit.Set || len(op.Path) < 2 || !slices.Contains(labelParents, op.Path[len(op.Path)-2]) {
			continue
		}
		var n yaml.Node
		if yaml.Unmarshal([]byte(op.Value), &n) != nil || len(n.Content) != 1 || n.Content[0].Kind != yaml.ScalarNode {
			continue
		}
		key, value := op.Path[len(op.Path)-1], n.Content[0].Value
		var computed []computedCopy
		for _, loc := range pl.writersOf(doc, key, value) {
			lines := templates[loc.File]
			if loc.Line > len(lines) {
				continue
			}
			t := strings.TrimRight(string(lines[loc.Line-1]), "\r\n")
			if !strings.Contains(t, "{{") {
				computed = nil // written as it is somewhere: a copy as rendered is that
				break
			}
			where := fmt.Sprintf("%s:%d", strings.TrimPrefix(loc.File, pl.render.Root+"/"), loc.Line)
			computed = append(computed, computedCopy{key, value, loc, t, where})
		}
		if len(computed) > 0 {
			out = append(out, computed[0])
		}
	}
	return out
}

// templateVariable matches a template variable other than the root ($).
var templateVariable = regexp.MustCompile(`\$[A-Za-z_]`)

// writeComputed writes, in changes of template file, each inserted line
// that writes one of copies as rendered (`app.kubernetes.io/version:
// "2.0"`) as the line of the chart that computes it, indented where the
// copy goes (`app.kubernetes.io/version: {{ .Chart.AppVersion | quote
// }}`): when that line writes the key and nothing else (no block, no
// trimming, no variable but the root), and its dot and the copy's are
// the root wherever they render (rootDot). false when a copy is left
// written as rendered.
func writeComputed(changes []edit.Change, file string, copies []computedCopy, templates map[string][][]byte) ([]edit.Change, bool) {
	out := slices.Clone(changes)
	for ci, c := range out {
		lines := strings.SplitAfter(c.Text, "\n")
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if t == "" || strings.Contains(t, "{{") {
				continue
			}
			var n yaml.Node
			if yaml.Unmarshal([]byte(t), &n) != nil || len(n.Content) != 1 || n.Content[0].Kind != yaml.MappingNode || len(n.Content[0].Content) != 2 {
				continue
			}
			k, v := n.Content[0].Content[0], n.Content[0].Content[1]
			for _, cp := range copies {
				if k.Value != cp.key || v.Kind != yaml.ScalarNode || v.Value != cp.value {
					continue
				}
				src := strings.TrimSpace(cp.text)
				if !strings.HasPrefix(src, cp.key+":") || strings.Contains(src, "{{-") || strings.Contains(src, "-}}") ||
					len(blockActions([]byte(src))) > 0 || templateVariable.MatchString(src) ||
					!rootDot(templates, cp.from.File, cp.from.Line, 3) || !rootDot(templates, file, c.StartLine, 3) {
					return nil, false
				}
				ending := l[len(strings.TrimRight(l, "\r\n")):]
				lines[i] = l[:len(l)-len(strings.TrimLeft(l, " "))] + src + ending
			}
		}
		out[ci].Text = strings.Join(lines, "")
	}
	return out, true
}

// computedBound says why a fix cannot be written into a chart's values
// file when one of its values edits writes, as rendered, a label value
// the chart computes (see computedCopies): in values.yaml it would keep
// this render's value when the chart's version or other values change
// the original. "" when none does.
func computedBound(ops []edit.Op, copies []computedCopy) string {
	for _, cp := range copies {
		if _, ok := editedScalar(ops, func(v string) bool { return v == cp.value }); ok {
			return fmt.Sprintf("its edit writes %s: %q as rendered, which the chart computes (%s): in values.yaml it would keep that value when the chart or its values change", cp.key, cp.value, cp.where)
		}
	}
	return ""
}
