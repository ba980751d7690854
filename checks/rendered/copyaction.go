package rendered

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks/edit"
)

// actionOutput is what template lines wrote into a rendered document as
// the value of a key: one line that is a single action, between two
// literal lines (`{{- include "app.selectorLabels" . | nindent 6 }}`
// under `matchLabels:`), or lines that each wrote one of its lines
// (`app: {{ template "app.name" . }}`, `release: {{ .Release.Name }}`).
type actionOutput struct {
	file   string
	line   int      // the action's template line, or the first of the lines
	text   string   // the action's template line, its ending cut
	lines  []string // the rendered lines it wrote, endings cut
	indent int      // the indentation its indent or nindent gives, or of the first line
	// verbatim, when set, are the template lines that wrote lines one
	// each, endings cut; text is then unused.
	verbatim []string
}

// indentCall matches the indent or nindent call of an action that writes
// a block: its number is the block's indentation.
var indentCall = regexp.MustCompile(`\b(n?indent)\s+(\d+)\b`)

// indentAction returns the indentation an action line (its text alone)
// gives what it writes, when the line is one action, no block (if, with,
// range, end), with one indent or nindent call.
func indentAction(line string) (int, bool) {
	t := strings.TrimSpace(line)
	calls := indentCall.FindAllStringSubmatch(t, -1)
	if !strings.HasPrefix(t, "{{") || !strings.HasSuffix(t, "}}") || strings.Count(t, "{{") != 1 || len(blockActions([]byte(t))) > 0 || len(calls) != 1 {
		return 0, false
	}
	n, err := strconv.Atoi(calls[0][2])
	return n, err == nil
}

// actionOutputs returns the blocks of rendered lines that one action line
// of a template wrote between two literal lines that are one line apart
// around it (see literalLines), where the action is no block (if, with,
// range, end) and indents what it writes (indent or nindent, once).
func actionOutputs(lit literalLines, rendered [][]byte, files fileSet) []actionOutput {
	var out []actionOutput
	byFile := map[string][][]byte{}
	for i := 1; i < len(rendered); i++ {
		a, ok := lit[i]
		if !ok {
			continue
		}
		j := i + 1
		for j <= len(rendered) {
			if _, ok := lit[j]; ok {
				break
			}
			j++
		}
		b, ok := lit[j]
		if !ok || j == i+1 || b.file != a.file || b.line != a.line+2 {
			continue
		}
		tmpl, ok := byFile[a.file]
		if !ok {
			tmpl = bytes.SplitAfter(contents(files, a.file), []byte("\n"))
			byFile[a.file] = tmpl
		}
		if a.line >= len(tmpl) {
			continue
		}
		text := strings.TrimRight(string(tmpl[a.line]), "\r\n")
		n, ok := indentAction(text)
		if !ok {
			continue
		}
		o := actionOutput{file: a.file, line: a.line + 1, text: text, indent: n}
		for _, l := range rendered[i : j-1] {
			o.lines = append(o.lines, strings.TrimRight(string(l), "\r\n"))
		}
		out = append(out, o)
	}
	return out
}

// writtenValues returns the values of keys (a line ending in ":") whose
// every line was written by one template line of its own, in order, one
// line below the other (see locatedOf), at least one of them with an
// action and none opening, closing or trimming around a block: the lines
// a copy of the value can be written as, indented anew.
func writtenValues(located literalLines, rendered [][]byte, files fileSet) []actionOutput {
	var out []actionOutput
	byFile := map[string][][]byte{}
	for i := 1; i < len(rendered); i++ {
		key, ok := located[i]
		if !ok || !strings.HasSuffix(strings.TrimRight(string(rendered[i-1]), " \r\n"), ":") {
			continue
		}
		tmpl, ok := byFile[key.file]
		if !ok {
			tmpl = bytes.SplitAfter(contents(files, key.file), []byte("\n"))
			byFile[key.file] = tmpl
		}
		top, _, _ := yamlLineShape(string(rendered[i-1]))
		o := actionOutput{file: key.file, line: key.line + 1}
		action := false
		for j := i + 1; j <= len(rendered); j++ {
			ind, _, _ := yamlLineShape(string(rendered[j-1]))
			if ind >= 0 && ind <= top {
				break
			}
			at, ok := located[j]
			if !ok || at.file != key.file || at.line != key.line+(j-i) || at.line > len(tmpl) {
				o.lines = nil
				break
			}
			t := strings.TrimRight(string(tmpl[at.line-1]), "\r\n")
			r := strings.TrimRight(string(rendered[j-1]), "\r\n")
			if strings.Contains(t, "{{-") || strings.Contains(t, "-}}") || len(blockActions([]byte(t))) > 0 || len(t)-len(strings.TrimLeft(t, " ")) != len(r)-len(strings.TrimLeft(r, " ")) {
				o.lines = nil
				break
			}
			action = action || strings.Contains(t, "{{")
			o.lines, o.verbatim = append(o.lines, r), append(o.verbatim, t)
		}
		if len(o.lines) == 0 || !action {
			continue
		}
		o.indent, _, _ = yamlLineShape(o.lines[0] + "\n")
		out = append(out, o)
	}
	return out
}

// copyActions writes, in the template changes of file, a block of
// inserted lines that copies what template lines wrote elsewhere in the
// same document (a spread constraint's matchLabels, copied from the
// selector's; see actionOutputs and writtenValues) as those lines,
// indented to where the block goes: the copy then follows the values and
// the release as the original does (`{{- include "app.selectorLabels" .
// | nindent 14 }}`, or `release: {{ .Release.Name }}`, not the labels the
// release named "release" rendered). A block is copied only whole, as
// the whole value of the key above it, and only where the template's dot
// is what it is at the action (the same with, range and define blocks
// around both).
func copyActions(changes []edit.Change, file string, outs []actionOutput, files fileSet) []edit.Change {
	if len(outs) == 0 {
		return changes
	}
	tmpl := bytes.SplitAfter(contents(files, file), []byte("\n"))
	out := slices.Clone(changes)
	for ci, c := range out {
		lines := strings.SplitAfter(c.Text, "\n")
		var text strings.Builder
		for i := 0; i < len(lines); {
			if o, n, ok := copiedAt(lines, i, outs, file); ok && slices.Equal(blockStack(tmpl, o.line, true), blockStack(tmpl, c.StartLine, true)) {
				text.WriteString(actionAt(o, n))
				i += len(o.lines)
				continue
			}
			text.WriteString(lines[i])
			i++
		}
		out[ci].Text = text.String()
	}
	return out
}

// copiedAt returns the action output of file that lines, from line i on,
// copy whole, as the whole value of the key on the line before (ending
// in ":"), and the indentation the copy is at.
func copiedAt(lines []string, i int, outs []actionOutput, file string) (actionOutput, int, bool) {
	if i == 0 || !strings.HasSuffix(strings.TrimRight(lines[i-1], "\r\n"), ":") {
		return actionOutput{}, 0, false
	}
	keyIndent, _, _ := yamlLineShape(lines[i-1])
	for _, o := range outs {
		if o.file != file || i+len(o.lines) > len(lines) {
			continue
		}
		first, _, _ := yamlLineShape(o.lines[0] + "\n")
		at, _, _ := yamlLineShape(lines[i])
		delta := at - first
		if at <= keyIndent || o.indent+delta < 0 {
			continue
		}
		same := true
		for k, l := range o.lines {
			got := strings.TrimRight(lines[i+k], "\r\n")
			if got != strings.Repeat(" ", max(delta, 0))+l[min(-min(delta, 0), len(l)):] {
				same = false
				break
			}
		}
		if !same {
			continue
		}
		if next := i + len(o.lines); next < len(lines) && lines[next] != "" {
			if ind, _, _ := yamlLineShape(lines[next]); ind >= at {
				continue // the block goes on past the copy
			}
		}
		return o, o.indent + delta, true
	}
	return actionOutput{}, 0, false
}

// actionAt is the line of action o that writes its block at indentation
// n: its indent or nindent call given n, and, for an action that trims
// the space before it ({{-), indented as the block (the indentation is
// trimmed with the line break; nindent starts a line of its own); or o's
// verbatim lines, moved to start at n.
func actionAt(o actionOutput, n int) string {
	if o.verbatim != nil {
		var b strings.Builder
		for _, l := range o.verbatim {
			if d := n - o.indent; d >= 0 {
				b.WriteString(strings.Repeat(" ", d) + l + "\n")
			} else {
				b.WriteString(l[min(-d, len(l)):] + "\n")
			}
		}
		return b.String()
	}
	t := strings.TrimSpace(o.text)
	lead := o.text[:len(o.text)-len(strings.TrimLeft(o.text, " \t"))]
	if strings.HasPrefix(t, "{{-") {
		lead = strings.Repeat(" ", n)
	}
	return lead + indentCall.ReplaceAllString(t, "${1} "+strconv.Itoa(n)) + "\n"
}
