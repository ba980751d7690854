package rendered

import (
	"bytes"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
	"go.yaml.in/yaml/v3"
)

// guardOpen matches a template line that opens a block on one values key
// alone: {{- with .Values.resources }}, {{- if .Values.securityContext }}.
var guardOpen = regexp.MustCompile(`^\{\{-?\s*(with|if)\s*\.Values\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*-?\}\}$`)

// guardWrite matches the action that writes the block's value: toYaml of
// it (the first group), or tpl of that (the second: the values text is
// rendered as a template, which leaves text with no action as it is),
// from a line of its own indented by the third group's columns.
var guardWrite = regexp.MustCompile(`^\{\{-?\s*(?:toYaml\s+(\S+)|tpl\s+\(\s*toYaml\s+([^\s()]+)\s*\)\s+\$)\s*\|\s*nindent\s+(\d+)\s*-?\}\}$`)

// guardIndent matches the older way to write it: a line of its own that
// starts with toYaml of it (keeping the line break before it), indented.
var guardIndent = regexp.MustCompile(`^\{\{\s*toYaml\s+(\S+)\s*\|\s*indent\s+(\d+)\s*-?\}\}$`)

// written is how a template line writes a values key's value.
type written struct {
	arg    string // the expression written: "." or ".Values.resources"
	indent int    // the column the value's lines start at
	tpl    bool   // the value's text is rendered as a template first
}

// nindentWrite reads action t (trimmed) as guardWrite's.
func nindentWrite(t string) (written, bool) {
	m := guardWrite.FindStringSubmatch(t)
	if m == nil {
		return written{}, false
	}
	n, err := strconv.Atoi(m[3])
	return written{arg: m[1] + m[2], indent: n, tpl: m[2] != ""}, err == nil
}

// valueWrite reads line, a template line of its own, as the action that
// writes a block's value.
func valueWrite(line string) (written, bool) {
	if w, ok := nindentWrite(strings.TrimSpace(line)); ok {
		return w, true
	}
	m := guardIndent.FindStringSubmatch(strings.TrimRight(line, " \t\r\n"))
	if m == nil {
		return written{}, false
	}
	n, err := strconv.Atoi(m[2])
	return written{arg: m[1], indent: n}, err == nil
}

// guarding is the values key a guard block writes, and whether it writes
// it through tpl.
type guarding struct {
	key string
	tpl bool
}

// guardEnd matches the action that closes the block.
var guardEnd = regexp.MustCompile(`^\{\{-?\s*end\s*-?\}\}$`)

// guardedOp returns op as an edit of the chart's values.yaml when the key
// it adds to its document is one the chart's template writes only from a
// values key, in a block that writes nothing else:
//
//	{{- with .Values.resources }}
//	resources:
//	  {{- toYaml . | nindent 12 }}
//	{{- end }}
//
// (or `if .Values.resources` with `toYaml .Values.resources`). The values
// key holds nothing yet (an empty mapping, or null), so the render lacks
// the key; the edit's value under it becomes that values key's, which is
// how the chart's users set it. Only templates of the chart itself, not
// of its subcharts, are read; rendering again still decides. An item
// appended to a list so written goes to the values list.
func (pl *placed) guardedOp(files fileSet, doc int, root *yaml.Node, op edit.Op) (string, edit.Op, bool) {
	segs, nodes := yamlpath.Walk(root, op.Path)
	n := yamlpath.Held(nodes) // the first segment the document lacks
	// An item appended to a list the block writes from values that hold
	// some already: a values list rendered through tpl, which the render's
	// map does not follow to values.yaml as it follows toYaml.
	appended := n == len(segs) && n > 0 && op.Action == edit.Append && nodes[n].Kind == yaml.SequenceNode
	if appended {
		n--
	}
	if n == len(segs) || segs[n].Index >= 0 {
		return "", edit.Op{}, false // an edit of what exists, or a list item
	}
	parent := nodes[n]
	if parent == nil || parent.Kind != yaml.MappingNode || len(parent.Content) == 0 {
		return "", edit.Op{}, false
	}
	var at Location // a line of the mapping's template that writes one of its keys
	ok := false
	for k := 0; k+1 < len(parent.Content) && !ok; k += 2 {
		at, ok = pl.ownTemplateLine(doc, FormatPath(append(slices.Clip(segs[:n]), Segment{Key: parent.Content[k].Value, Index: -1})))
	}
	if !ok {
		return "", edit.Op{}, false
	}
	g, ok := guardOf(bytes.SplitAfter(contents(files, at.File), []byte("\n")), at.Line, segs[n].Key)
	if !ok {
		return "", edit.Op{}, false
	}
	rest := op.Path[n+1:]
	return pl.valuesKeyEdit(files, doc, g, op, rest, func(v *yaml.Node) bool {
		if appended {
			return v.Kind == yaml.SequenceNode
		}
		// Anything else it held would be rendered already.
		if op.Action == edit.Append && len(rest) == 0 {
			return v.Kind == yaml.SequenceNode && len(v.Content) == 0 || v.Tag == "!!null"
		}
		return v.Kind == yaml.MappingNode && len(v.Content) == 0 || v.Tag == "!!null"
	})
}

// extendedOp returns op, an item appended to a list of its document, as
// the same item appended to the values list that the chart's template
// writes at the list's end, after its own items:
//
//	volumeMounts:
//	  - name: config
//	    mountPath: /etc/app
//	  {{- with .Values.extraVolumeMounts }}
//	  {{- toYaml . | nindent 10 }}
//	  {{- end }}
//
// (or `if .Values.extraVolumeMounts` with `toYaml .Values.extraVolumeMounts`),
// where nindent puts the values list's items at the column of the
// template's own: the chart's users add mounts that way, and an item
// appended to the values list renders last, where the fix appends it.
func (pl *placed) extendedOp(files fileSet, doc int, root *yaml.Node, op edit.Op) (string, edit.Op, bool) {
	if op.Action != edit.Append {
		return "", edit.Op{}, false
	}
	segs, nodes := yamlpath.Walk(root, op.Path)
	if list := nodes[len(segs)]; list == nil || list.Kind != yaml.SequenceNode && list.Tag != "!!null" {
		return "", edit.Op{}, false
	}
	at, ok := pl.ownTemplateLine(doc, FormatPath(segs))
	if !ok {
		return "", edit.Op{}, false
	}
	g, ok := extensionOf(bytes.SplitAfter(contents(files, at.File), []byte("\n")), at.Line)
	if !ok {
		return "", edit.Op{}, false
	}
	return pl.valuesKeyEdit(files, doc, g, op, nil, func(v *yaml.Node) bool {
		return v.Kind == yaml.SequenceNode || v.Tag == "!!null"
	})
}

// ownTemplateLine returns the line of the chart's own templates (not a
// subchart's) that writes key path p of document doc.
func (pl *placed) ownTemplateLine(doc int, p string) (Location, bool) {
	for _, loc := range pl.render.Map(doc)[p] {
		if loc.Kind == Template && !loc.Inherited && loc.Line > 0 {
			return loc, strings.HasPrefix(loc.File, path.Join(pl.render.Root, "templates")+"/")
		}
	}
	return Location{}, false
}

// valuesKeyEdit returns op, an edit of document doc, made on g's key
// (dotted) of the chart's values.yaml, with rest the part of op's path
// below it, when the values file holds that key with a value takes
// accepts. Through tpl, the values the render took from the release or
// the chart are written as the template that wrote them (tplValue), and a
// value with an action of its own is not written.
func (pl *placed) valuesKeyEdit(files fileSet, doc int, g guarding, op edit.Op, rest []string, takes func(*yaml.Node) bool) (string, edit.Op, bool) {
	file := path.Join(pl.render.Root, "values.yaml")
	values := pl.valuesDoc(files, file)
	if values == nil {
		return "", edit.Op{}, false
	}
	keyPath := strings.Split(g.key, ".")
	_, held := yamlpath.Walk(values, keyPath)
	if v := held[len(keyPath)]; v == nil || !takes(v) {
		return "", edit.Op{}, false
	}
	t := op
	t.Path = append(keyPath, rest...)
	if g.tpl {
		if strings.Contains(op.Value, "{{") || pl.src == nil {
			return "", edit.Op{}, false
		}
		v, ok := pl.tplValue(files, doc, op.Value)
		if !ok {
			return "", edit.Op{}, false
		}
		t.Value = v
	}
	return file, t, true
}

// guardOf returns the values key of the block that writes key in the
// mapping of tmpl (lines with their endings) one of whose keys is written
// on line anchor (1-based, as "key:" or "- key:"), when that block is the
// only way the template writes the key there: the line before the key's
// opens it on the values key alone, the key's value is toYaml of it (on
// the key's line or the next), and the line after closes it.
func guardOf(tmpl [][]byte, anchor int, key string) (guarding, bool) {
	if anchor < 1 || anchor > len(tmpl) {
		return guarding{}, false
	}
	_, _, col := yamlLineShape(string(tmpl[anchor-1]))
	first := mappingStart(tmpl, anchor)
	for i := first - 1; i < len(tmpl); i++ { // tmpl[i] is line i+1
		line := string(tmpl[i])
		t := strings.TrimSpace(line)
		ind, dash, c := yamlLineShape(line)
		switch {
		case ind < 0 || strings.HasPrefix(t, "{{"):
			continue // blank, a comment, or an action line
		case dash && c == col && i == first-1:
			continue // the list item's first key
		case ind < col:
			return guarding{}, false // past the mapping: the key is not there
		case ind > col || dash || !strings.HasPrefix(t, key+":"):
			continue // inside an entry, or a compact list's item
		}
		if i == 0 {
			return guarding{}, false
		}
		gkey, want, ok := guardOpened(string(tmpl[i-1]))
		if !ok {
			return guarding{}, false
		}
		var w written
		ok, next := false, i+1 // the key's value is written as toYaml of the block's
		if rest := strings.TrimSpace(strings.TrimPrefix(t, key+":")); rest != "" {
			w, ok = nindentWrite(rest)
		} else if next < len(tmpl) {
			w, ok = valueWrite(string(tmpl[next]))
			next++
		}
		if !ok || w.arg != want || next >= len(tmpl) || !guardEnd.MatchString(strings.TrimSpace(string(tmpl[next]))) {
			return guarding{}, false
		}
		return guarding{gkey, w.tpl}, true
	}
	return guarding{}, false
}

// mappingStart returns the first line (1-based) of tmpl that writes a key
// of the mapping one of whose keys line anchor writes: the line of its
// first key after its parent's, or its list item's "- key:" line.
func mappingStart(tmpl [][]byte, anchor int) int {
	_, dash, col := yamlLineShape(string(tmpl[anchor-1]))
	if dash {
		return anchor
	}
	start := anchor
	for l := anchor - 1; l >= 1; l-- {
		line := string(tmpl[l-1])
		if strings.HasPrefix(strings.TrimSpace(line), "{{") {
			continue // an action line
		}
		ind, d, c := yamlLineShape(line)
		switch {
		case ind < 0 || ind > col:
			continue // blank, a comment, or inside an entry
		case d && c == col:
			return l // the list item's first key
		case d && ind >= col:
			continue // an item of a compact list of a key before
		case ind == col:
			start = l // a key before
		default:
			return start // the parent's key
		}
	}
	return start
}

// extensionOf returns the values key whose list the template (lines with
// their endings) writes at the end of the list keyed on line keyLine
// (1-based): after the list's last literal line, among the action lines
// before what ends the list, the last block opened on one values key
// alone that writes toYaml of it indented to the items' column and ends,
// in the blocks the key line is in; after it, only actions that write
// nothing (if, with, range, else, end, a variable) or write less
// indented, past the list (a pod's extra containers after its last
// container's mounts).
func extensionOf(tmpl [][]byte, keyLine int) (guarding, bool) {
	if keyLine < 1 || keyLine > len(tmpl) {
		return guarding{}, false
	}
	keyIndent, _, keyCol := yamlLineShape(string(tmpl[keyLine-1]))
	if keyIndent < 0 || !strings.HasSuffix(strings.TrimSpace(string(tmpl[keyLine-1])), ":") {
		return guarding{}, false
	}
	var tail []int                         // the action lines (1-based) after the list's last literal line
	items := -1                            // the column of the items' dashes
	for i := keyLine; i < len(tmpl); i++ { // tmpl[i] is line i+1
		line := string(tmpl[i])
		if strings.HasPrefix(strings.TrimSpace(line), "{{") {
			tail = append(tail, i+1)
			continue
		}
		ind, dash, _ := yamlLineShape(line)
		if ind < 0 {
			continue // blank, or a comment
		}
		if items < 0 {
			switch {
			case dash && ind >= keyCol:
				items = ind
			case ind > keyIndent:
				return guarding{}, false // a mapping, or a list not on lines of its own
			}
		}
		if items < 0 || ind < items || ind == items && !dash {
			break // past the list
		}
		tail = tail[:0]
	}
	text := func(l int) string { return strings.TrimSpace(string(tmpl[l-1])) }
	at, g := -1, guarding{} // the index in tail of the extension's opening line, and its values key
	for j := 0; j+2 < len(tail); j++ {
		if tail[j+2] != tail[j]+2 {
			continue // not three lines in a row
		}
		k, indent, ok := guardBlock(tmpl[tail[j]-1 : tail[j]+2])
		if ok && (indent == items || items < 0 && indent >= keyCol) {
			at, g = j, k
			if items < 0 { // the list has no items of the template's own
				items = indent
			}
		}
	}
	if at < 0 || !slices.Equal(blockStack(tmpl, keyLine, false), blockStack(tmpl, tail[at], false)) {
		return guarding{}, false
	}
	for _, l := range tail[at+3:] {
		if !writesPast(text(l), items) {
			return guarding{}, false // what it writes may land in the list
		}
	}
	return g, true
}

// writesNothing matches an action line that writes no text: a block's
// opening, branch or end, or a variable's assignment.
var writesNothing = regexp.MustCompile(`^\{\{-?\s*(?:(?:if|with|range|else|end)\b|\$\w*\s*:?=)`)

// nindentTo matches the end of an action line whose output starts on a
// line of its own, at the column of its group.
var nindentTo = regexp.MustCompile(`\|\s*nindent\s+(\d+)\s*-?\}\}$`)

// writesPast reports whether action line t (one action) writes nothing,
// or writes from a new line indented less than column items.
func writesPast(t string, items int) bool {
	if strings.Count(t, "{{") != 1 {
		return false
	}
	if writesNothing.MatchString(t) {
		return true
	}
	m := nindentTo.FindStringSubmatch(t)
	if m == nil {
		return false
	}
	n, err := strconv.Atoi(m[1])
	return err == nil && n < items
}

// guardBlock reads three template lines as a block opened on one values
// key alone that writes toYaml of it and ends: the key, and the columns
// its value is indented to.
func guardBlock(lines [][]byte) (guarding, int, bool) {
	key, want, ok := guardOpened(string(lines[0]))
	if !ok {
		return guarding{}, 0, false
	}
	w, ok := valueWrite(string(lines[1]))
	if !ok || w.arg != want || !guardEnd.MatchString(strings.TrimSpace(string(lines[2]))) {
		return guarding{}, 0, false
	}
	return guarding{key, w.tpl}, w.indent, true
}

// guardOpened reads line as guardOpen's: the values key the block opens
// on, and the expression the block's toYaml must write (. under with,
// .Values.key under if).
func guardOpened(line string) (key, want string, ok bool) {
	m := guardOpen.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return "", "", false
	}
	if m[1] == "if" {
		return m[2], ".Values." + m[2], true
	}
	return m[2], ".", true
}
