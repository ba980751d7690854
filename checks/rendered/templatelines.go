package rendered

import (
	"bytes"
	"cmp"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// templateLine is a line of a template file, relative to the render's folder.
type templateLine struct {
	file string
	line int
}

// literalLines maps the lines of one rendered document to the template
// lines that rendered them as written: lines holding a key whose own
// location is a template line with the same text, no template action, and
// no other rendered line of the render from it (a line inside range, or of
// a template included twice, renders more than once and is not one of
// them). Lines of the document are 1-based, as edit.Changes numbers them.
type literalLines map[int]templateLine

// templateLines returns f's fix as whole-line changes of the template
// lines that rendered the lines it changes, when all of them are literal
// lines (see literalLines) of one template file of the chart: the fix is
// made on the rendered document, its changed lines are taken
// (edit.Changes), and each change, with the lines around it, must be
// consecutive literal lines of that file (see mapChange). Template output
// is written in order, so text changed among lines rendered as written
// comes out among them; VerifyFixes still renders the chart again to keep
// only fixes whose finding is gone without a new one.
func (pl *placed) templateLines(files fileSet, f checks.Finding) (placement, bool) {
	return pl.templateLinesOf(files, f.Object.Doc, f.Fix.Edits, f.Fix.Reads)
}

// templateLinesOf is templateLines for the edits ops of document doc,
// which write again the values at paths reads (Fix.Reads).
func (pl *placed) templateLinesOf(files fileSet, doc int, ops []edit.Op, reads []manifest.Path) (placement, bool) {
	if out, ok := pl.templateLinesTogether(files, doc, ops, reads); ok || len(ops) < 2 {
		return out, ok
	}
	return pl.templateLinesApart(files, doc, ops, reads)
}

// templateLinesApart places edits ops in groups, when made together
// their changes of the rendered document run into one that no template
// lines wrote (a container's last key and its pod's next, adjacent once
// rendered: a volume mount and the volume): each edit joins the first
// group it can be placed together with, or starts one, and the groups'
// line changes, in one file, must not overlap but for insertions after
// one line, which become one (mergeInsertions). Edits of two groups must
// not add the same key, or one above the other: two groups that each add
// a container's securityContext would write it twice.
func (pl *placed) templateLinesApart(files fileSet, doc int, ops []edit.Op, reads []manifest.Path) (placement, bool) {
	root := pl.renderedDoc(doc)
	if root == nil {
		return placement{}, false
	}
	type group struct {
		ops   []edit.Op
		added [][]string // the first key each of ops adds
		at    placement
	}
	var groups []group
	for _, op := range ops {
		added := addedKey(root, op.Path)
		joined := false
		for i := range groups {
			more := append(slices.Clone(groups[i].ops), op)
			if at, ok := pl.templateLinesTogether(files, doc, more, reads); ok {
				groups[i] = group{more, append(groups[i].added, added), at}
				joined = true
				break
			}
		}
		if joined {
			continue
		}
		at, ok := pl.templateLinesTogether(files, doc, []edit.Op{op}, reads)
		if !ok {
			return placement{}, false
		}
		groups = append(groups, group{[]edit.Op{op}, [][]string{added}, at})
	}
	for i := range groups {
		for j := range i {
			for _, a := range groups[i].added {
				for _, b := range groups[j].added {
					if n := min(len(a), len(b)); slices.Equal(a[:n], b[:n]) { // one is the other or above it
						return placement{}, false
					}
				}
			}
		}
	}
	var out placement
	for _, g := range groups {
		if out.file != "" && g.at.file != out.file {
			return placement{}, false
		}
		if out.file == "" {
			out.file, out.line = g.at.file, g.at.line
		}
		for _, l := range g.at.lines {
			if !slices.Contains(out.lines, l) {
				out.lines = append(out.lines, l)
			}
		}
	}
	// Two groups may insert after one line (a mapping's end moved to
	// the last line written as it is): one insertion of both.
	out.lines = mergeInsertions(out.lines)
	if _, err := edit.ApplyAllChanges(contents(files, out.file), out.lines); err != nil {
		return placement{}, false
	}
	return out, true
}

// addedKey is the key path an edit at p adds to the rendered document
// root: p up to its first key the document lacks (p itself when it has
// it all).
func addedKey(root *yaml.Node, p []string) []string {
	_, nodes := yamlpath.Walk(root, p)
	return p[:min(yamlpath.Held(nodes)+1, len(p))]
}

// templateLinesTogether is templateLinesOf for ops made together on the
// rendered document.
func (pl *placed) templateLinesTogether(files fileSet, doc int, ops []edit.Op, reads []manifest.Path) (placement, bool) {
	r := pl.render
	if doc < 0 || doc >= len(r.Documents) || doc >= len(r.Maps) {
		return placement{}, false
	}
	text := r.Documents[doc].YAML
	fixed, err := edit.Apply(text, 0, ops)
	if err != nil {
		return placement{}, false
	}
	changes := edit.Changes(text, fixed)
	if len(changes) == 0 {
		return placement{}, false
	}
	lit := pl.literalOf(files, doc)
	rendered := bytes.SplitAfter(text, []byte("\n"))
	var out placement
	for _, c := range changes {
		tc, ok := mapChange(c, lit, rendered, files, false)
		if !ok {
			tc, ok = moveInsertion(c, lit, pl.locatedOf(files, doc), rendered, files)
		}
		if !ok {
			tc, ok = removeLocated(c, pl.locatedOf(files, doc), files)
		}
		if !ok || (out.file != "" && tc.file != out.file) {
			return placement{}, false
		}
		if out.file == "" {
			out.file, out.line = tc.file, tc.at
		}
		out.lines = append(out.lines, tc.change)
	}
	// The first the template writes is copied when two wrote the same
	// lines (a selector's, before the pod template's labels).
	outs := append(actionOutputs(lit, rendered, files), writtenValues(pl.locatedOf(files, doc), rendered, files)...)
	slices.SortStableFunc(outs, func(a, b actionOutput) int { return cmp.Or(strings.Compare(a.file, b.file), a.line-b.line) })
	out.lines = copyActions(mergeInsertions(out.lines), out.file, outs, files)
	templates := pl.chartLines(files)
	if copies := pl.computedCopies(templates, doc, ops, reads); len(copies) > 0 {
		out.lines = writeComputed(out.lines, out.file, copies, templates, pl.chartCalls(files))
	}
	if pl.vendored(out.file) {
		return placement{}, false
	}
	out.lines = endingsOf(contents(files, out.file), out.lines)
	if _, err := edit.ApplyAllChanges(contents(files, out.file), out.lines); err != nil {
		return placement{}, false
	}
	return out, true
}

// endingsOf returns changes with their line endings those of tmpl: a
// template written with CRLF line endings gets its lines copied and
// inserted with CRLF too (copies are assembled from lines whose endings
// were cut, and joined with LF).
func endingsOf(tmpl []byte, changes []edit.Change) []edit.Change {
	if crlf := bytes.Count(tmpl, []byte("\r\n")); crlf == 0 || 2*crlf < bytes.Count(tmpl, []byte("\n")) {
		return changes
	}
	out := slices.Clone(changes)
	for i := range out {
		out[i].Text = strings.ReplaceAll(strings.ReplaceAll(out[i].Text, "\r\n", "\n"), "\n", "\r\n")
	}
	return out
}

// MaxCombineRenders bounds the renders combineTemplateLines spends on one
// chart, one per rendered document, on top of MaxVerifyRenders.
const MaxCombineRenders = 10

// combineTemplateLines gives the verified fixes of one rendered document
// that change its template's lines one set of line changes: each fix's
// own changes were verified alone, but fixes that insert at the same line
// (a probe and a preStop hook after a container's last key) overlap, and
// only the edits made together on the rendered document merge (one
// securityContext block, not two). When the document's fixes made
// together map to the template too, and rendering the chart with that
// set shows each finding gone and none new (one render more), every one
// of those fixes carries the whole set, so that applying any of them
// applies all and suggestions of them are one. Otherwise each keeps its
// own, and the fixes that overlap are applied one round after another.
func (pl *placed) combineTemplateLines(v *verifier, src *source, fs []checks.Finding, kept []candidate) {
	// A fix made in two files keeps its own lines: its values part is
	// not one of the set's.
	docs, byDoc := keptByDoc(kept, func(c candidate) bool { return len(c.place.lines) > 0 && c.place.also == nil })
	for _, d := range docs {
		idx := byDoc[d]
		cands := make([]candidate, len(idx))
		for j, i := range idx {
			cands[j] = kept[i]
		}
		// Only fixes whose lines overlap: a set of changes far apart is
		// no one suggestion, and each is applied alone as it is.
		for _, cluster := range overlapping(cands) {
			if len(cluster) < 2 {
				continue
			}
			group := make([]int, len(cluster))
			for j, c := range cluster {
				group[j] = idx[c]
			}
			pl.combineGroup(v, src, fs, kept, d, group)
		}
	}
}

// overlapping groups cands by their template line changes: two are in
// one group when their changes of one file overlap, or both overlap a
// third's. Groups and their members are in the order of cands.
func overlapping(cands []candidate) [][]int {
	group := make([]int, len(cands))
	for i := range group {
		group[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for group[i] != i {
			i = group[i]
		}
		return i
	}
	for i := range cands {
		for j := range i {
			if cands[i].place.file == cands[j].place.file && linesOverlap(cands[i].place.lines, cands[j].place.lines) {
				a, b := find(i), find(j)
				group[max(a, b)] = min(a, b)
			}
		}
	}
	var out [][]int
	at := map[int]int{}
	for i := range cands {
		r := find(i)
		k, ok := at[r]
		if !ok {
			k = len(out)
			at[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], i)
	}
	return out
}

// linesOverlap reports whether a change of a overlaps a change of b (one
// both make is made once: not an overlap).
func linesOverlap(a, b []edit.Change) bool {
	for _, x := range a {
		for _, y := range b {
			if x != y && x.StartLine <= y.EndLine && y.StartLine <= x.EndLine {
				return true
			}
		}
	}
	return false
}

// combineGroup is combineTemplateLines for the kept fixes idx of document
// d: it reports whether they now carry one set of line changes.
func (pl *placed) combineGroup(v *verifier, src *source, fs []checks.Finding, kept []candidate, d int, idx []int) bool {
	if pl.combines >= MaxCombineRenders || v.ctx.Err() != nil {
		return false
	}
	var ops []edit.Op
	var reads []manifest.Path
	for _, i := range idx {
		ops = append(ops, fs[kept[i].finding].Fix.Edits...)
		reads = append(reads, fs[kept[i].finding].Fix.Reads...)
	}
	whole, ok := pl.templateLinesOf(src, d, ops, reads)
	if !ok {
		return false
	}
	trial := make([]candidate, len(idx))
	for j, i := range idx {
		trial[j] = kept[i]
		trial[j].place.lines = nil
	}
	trial[0].place.lines = whole.lines // applied once for all of them
	trial[0].place.file = whole.file
	old := pl.aloneKeys(v.cfg)
	pl.combines++
	keys, ok, _ := pl.renderWith(v, src, trial[:1])
	if !ok || adds(keys, old, trial) != "" || len(gone(trial, keys)) != len(trial) {
		return false
	}
	for _, i := range idx {
		kept[i].place.lines = whole.lines
	}
	return true
}

// keptByDoc groups the indexes of the kept fixes that is reports true for
// by the rendered document of their finding, the documents in the order
// they first appear.
func keptByDoc(kept []candidate, is func(candidate) bool) (docs []int, byDoc map[int][]int) {
	byDoc = map[int][]int{}
	for i, c := range kept {
		if !is(c) {
			continue
		}
		if _, ok := byDoc[c.doc]; !ok {
			docs = append(docs, c.doc)
		}
		byDoc[c.doc] = append(byDoc[c.doc], i)
	}
	return docs, byDoc
}

// mappedChange is a change of a rendered document moved to its template.
type mappedChange struct {
	file   string
	at     int // the template line the finding moves to
	change edit.Change
}

// mapChange moves one change of a rendered document (lines numbered as
// in rendered, each with its ending) to the template lines that rendered
// them as written, in the template files of files. A change that inserts
// lines must have literal lines around it too: the rendered lines before and after it
// (where the document has them) are the template lines before and after
// its own, so no template action sits next to what it changes, and text
// it inserts is written exactly when its neighbours are, whatever the
// values. At the document's end the template must end there too (its
// file, or a "---"). A key it inserts must not be written anywhere else in
// the template's document (a conditional block of the chart's own for it:
// with other values it would be there twice); another document of the
// file (after a "---") writing it is not this one's. A change moved
// (moveInsertion) checks what lies before it its own way.
func mapChange(c edit.Change, lit literalLines, rendered [][]byte, files fileSet, moved bool) (mappedChange, bool) {
	first, ok := consecutive(lit, c.StartLine, c.EndLine)
	if !ok {
		return mappedChange{}, false
	}
	tmpl := bytes.SplitAfter(contents(files, first.file), []byte("\n"))
	last := first.line + c.EndLine - c.StartLine
	out := mappedChange{file: first.file, at: first.line, change: edit.Change{StartLine: first.line, EndLine: last, Text: c.Text}}
	if strings.Count(c.Text, "\n") <= c.EndLine-c.StartLine+1 {
		return out, true // lines changed in place or removed: nothing lands next to an action
	}
	if c.StartLine > 1 && !moved {
		if before, ok := lit[c.StartLine-1]; !ok || before.file != first.file || before.line != first.line-1 {
			return mappedChange{}, false
		}
	}
	if c.EndLine < len(rendered) && len(bytes.TrimSpace(rendered[c.EndLine])) > 0 {
		if after, ok := lit[c.EndLine+1]; !ok || after.file != first.file || after.line != last+1 {
			return mappedChange{}, false
		}
	} else if last < len(tmpl) {
		next := string(bytes.TrimSpace(tmpl[last]))
		if next != "" && next != "---" {
			return mappedChange{}, false
		}
	}
	replaced := map[string]bool{}
	for l := first.line; l <= last; l++ {
		replaced[string(tmpl[l-1])] = true
	}
	keys, want := insertedKeys(c.Text, replaced)
	if writtenElsewhere(tmpl, first.line, last, last, want, keys) {
		return mappedChange{}, false
	}
	return out, true
}

// removeLocated maps change c, when it only removes rendered lines each
// of which a template line of its own wrote alone (`serviceAccount: {{
// include "app.fullname" . }}`; see locatedOf), as the removal of those
// template lines: consecutive lines of one file, none an action alone or
// a block's, none trimming the line break after it, and the line before
// them not trimming theirs, so that what the lines rendered is exactly
// what c removes.
func removeLocated(c edit.Change, located literalLines, files fileSet) (mappedChange, bool) {
	if c.Text != "" {
		return mappedChange{}, false
	}
	first, ok := consecutive(located, c.StartLine, c.EndLine)
	if !ok {
		return mappedChange{}, false
	}
	tmpl := bytes.SplitAfter(contents(files, first.file), []byte("\n"))
	last := first.line + c.EndLine - c.StartLine
	if last > len(tmpl) || first.line > 1 && bytes.HasSuffix(bytes.TrimSpace(tmpl[first.line-2]), []byte("-}}")) {
		return mappedChange{}, false
	}
	for l := first.line; l <= last; l++ {
		t := bytes.TrimSpace(tmpl[l-1])
		if bytes.HasPrefix(t, []byte("{{")) || bytes.HasSuffix(t, []byte("-}}")) || len(blockActions(t)) > 0 {
			return mappedChange{}, false
		}
	}
	return mappedChange{file: first.file, at: first.line, change: edit.Change{StartLine: first.line, EndLine: last}}, true
}

// writtenElsewhere reports whether a line of tmpl outside lines first
// through last writes one of keys into the mapping that keys inserted
// after line at, at indentation want, go into (see mappingAround): a
// conditional block of the chart's own for one of them would, with other
// values, write it there twice. A line writing it into another mapping
// of the document (another container's probe) is not one.
func writtenElsewhere(tmpl [][]byte, first, last, at, want int, keys []string) bool {
	from, to := mappingAround(tmpl, at, want)
	for _, k := range keys {
		for l := max(from-1, 1); l <= to; l++ { // the parent too: a sequence item's "- key:" line
			if _, _, col := yamlLineShape(string(tmpl[l-1])); (l < first || l > last) && writesKey(tmpl[l-1], k) && col == want {
				return true
			}
		}
	}
	return false
}

// mappingAround returns the template lines of the mapping whose entries
// are written at indentation want around line at of tmpl (an insertion
// after at goes into it): from the line after its parent, the nearest
// line at or above at that writes text less indented, to the line before
// the first below at that does, within at's YAML document. Lines of
// actions alone (`{{- if .Values.x }}`, `{{ toYaml . | indent 8 }}`),
// blank lines and comments are read through: their text is not where it
// renders.
func mappingAround(tmpl [][]byte, at, want int) (from, to int) {
	docFrom, docTo := documentAround(tmpl, max(at, 1), max(at, 1))
	outside := func(l int) bool {
		t := bytes.TrimSpace(tmpl[l-1])
		if bytes.HasPrefix(t, []byte("{{")) && bytes.HasSuffix(t, []byte("}}")) {
			return false
		}
		ind, _, _ := yamlLineShape(string(tmpl[l-1])) // -1 for a blank line or a comment
		return ind >= 0 && ind < want
	}
	from, to = docFrom, docTo
	for l := min(at, docTo); l >= docFrom; l-- {
		if outside(l) {
			from = l + 1
			break
		}
	}
	for l := at + 1; l <= docTo; l++ {
		if outside(l) {
			to = l - 1
			break
		}
	}
	return from, to
}

// mapBeforeNext maps change c, which inserts keys after rendered line
// c.StartLine, as the same keys inserted before the next rendered line
// when that line is the next entry of the same mapping (a key at the
// inserted keys' indentation) and a literal line of the template: the
// keys then come out wherever that entry does, after whatever the
// template lines before it write (a block `{{- with .Values.x }} … {{-
// end }}` the values leave out, or an action on the line before). The
// line before it must not end with an action that trims the line break
// after it. The change returned replaces that template line; its at is
// that line. Whether the line is reached whenever the mapping is written
// is for moveInsertion to check (blocksClosed).
func mapBeforeNext(c edit.Change, lit literalLines, rendered [][]byte, files fileSet) (mappedChange, bool) {
	a := c.StartLine
	if c.EndLine != a || a < 1 || a >= len(rendered) {
		return mappedChange{}, false
	}
	inserted, ok := strings.CutPrefix(c.Text, string(rendered[a-1]))
	if !ok || inserted == "" {
		return mappedChange{}, false
	}
	want, _, _ := yamlLineShape(inserted)
	ind, dash, _ := yamlLineShape(string(rendered[a]))
	next, ok := lit[a+1]
	if !ok || dash || ind > want || next.line < 2 {
		return mappedChange{}, false
	}
	tmpl := bytes.SplitAfter(contents(files, next.file), []byte("\n"))
	if next.line > len(tmpl) || bytes.HasSuffix(bytes.TrimRight(tmpl[next.line-2], " \t\r\n"), []byte("-}}")) {
		return mappedChange{}, false
	}
	line := string(tmpl[next.line-1])
	keys, _ := insertedKeys(inserted+line, map[string]bool{line: true})
	if ind < want {
		// The mapping ends at the next line: its entries must be what
		// the one action above that line wrote, and no template of the
		// chart (the helper it includes) may write the keys.
		if !entriesOfAction(lit, rendered, a, want, tmpl, next) || !fixedKeysHelper(files, next.file, string(tmpl[next.line-2])) || writtenInChart(files, next.file, keys) {
			return mappedChange{}, false
		}
	}
	if writtenElsewhere(tmpl, next.line, next.line, next.line-1, want, keys) {
		return mappedChange{}, false
	}
	return mappedChange{file: next.file, at: next.line,
		change: edit.Change{StartLine: next.line, EndLine: next.line, Text: inserted + line}}, true
}

// entriesOfAction reports whether the mapping whose last rendered line is
// a, and whose keys are at indentation want, holds only what one action
// line of tmpl wrote (`{{- include "app.labels" . | nindent 4 }}` under
// `labels:`): the template line before next (the literal line after the
// mapping) is that action, indenting what it writes to want, and the line
// before it is the mapping's parent, literal, with none of the mapping's
// lines literal. Keys inserted before next then follow what the action
// writes, as its entries' siblings, whatever the values.
func entriesOfAction(lit literalLines, rendered [][]byte, a, want int, tmpl [][]byte, next templateLine) bool {
	if next.line < 3 {
		return false
	}
	if n, ok := indentAction(string(tmpl[next.line-2])); !ok || n != want {
		return false
	}
	p := a
	for p >= 1 {
		if _, ok := lit[p]; ok {
			break
		}
		if ind, _, _ := yamlLineShape(string(rendered[p-1])); ind >= 0 && ind < want {
			return false
		}
		p--
	}
	parent, ok := lit[p]
	top, _, _ := yamlLineShape(string(rendered[max(p, 1)-1]))
	return ok && p < a && parent.file == next.file && parent.line == next.line-2 && top < want &&
		strings.HasSuffix(strings.TrimRight(string(rendered[p-1]), " \r\n"), ":")
}

// includeCall matches an action line that includes a helper with one
// argument, the dot or a variable (`$`, `$global`), indented: `{{-
// include "app.labels" . | nindent 4 }}`; the helper's name, and the
// argument.
var includeCall = regexp.MustCompile(`^\{\{-?\s*(?:include|template)\s+"([^"]+)"\s+(\.|\$\w*)\s*\|\s*n?indent\s+\d+\s*-?\}\}$`)

// helperUse matches a helper's use inside a template: include or template
// of a named define (the first group), and what follows the name up to a
// space, its argument when that is one word (the second: ".", "$").
var helperUse = regexp.MustCompile(`\b(?:include|template)\s+"([^"]+)"\s*(\S*)`)

// fixedKeysHelper reports whether action (a template line) includes a
// helper of the chart of file, with the dot alone, whose keys are its
// text's: its define, and those it includes in turn, write no values
// through toYaml, toJson, tpl or range, so that no values can write a key
// beside the ones the chart's text names (writtenInChart then reads
// those).
func fixedKeysHelper(files fileSet, file, action string) bool {
	m := includeCall.FindStringSubmatch(strings.TrimSpace(action))
	if m == nil || m[2] != "." && m[2] != "$" {
		return false
	}
	texts, ok := chartTemplates(files, file)
	if !ok {
		return false
	}
	bodies, complete := helperClosure(texts, m[1])
	if !complete {
		return false
	}
	for _, body := range bodies {
		for _, w := range []string{"toYaml", "toJson", "tpl", "range"} {
			if strings.Contains(body, w) {
				return false
			}
		}
	}
	return true
}

// helperClosure returns the bodies of the define name and of those it
// includes, in turn, up to 8 deep, by name, from texts (the chart's
// templates by path); complete is false when one of them has no define
// there (a library chart's) or they go deeper, the others still read.
func helperClosure(texts map[string][]byte, name string) (bodies map[string]string, complete bool) {
	bodies, complete = map[string]string{}, true
	var add func(n string, depth int)
	add = func(n string, depth int) {
		if _, seen := bodies[n]; seen {
			return
		}
		body, ok := defineBody(texts, n)
		if !ok || depth > 8 {
			complete = false
			return
		}
		bodies[n] = body
		for _, u := range helperUse.FindAllStringSubmatch(body, -1) {
			add(u[1], depth+1)
		}
	}
	add(name, 0)
	return bodies, complete
}

// defineBody returns the text of the define named name in texts, from
// the line after its define action to the line before its end.
func defineBody(texts map[string][]byte, name string) (string, bool) {
	open := `define "` + name + `"`
	for _, t := range texts {
		lines := bytes.SplitAfter(t, []byte("\n"))
		for i, l := range lines {
			if !bytes.Contains(l, []byte(open)) {
				continue
			}
			depth := 0
			for j := i; j < len(lines); j++ {
				for _, a := range blockActions(lines[j]) {
					switch a {
					case "end":
						depth--
					case "else":
					default:
						depth++
					}
				}
				switch {
				case depth <= 0 && j == i:
					return string(l), true // defined on one line
				case depth <= 0:
					return string(bytes.Join(lines[i+1:j], nil)), true
				}
			}
			return "", false
		}
	}
	return "", false
}

// chartTemplates returns the texts of the templates of the chart that
// holds file (its templates folder, helpers included), by path; false
// when file is no chart's template.
func chartTemplates(files fileSet, file string) (map[string][]byte, bool) {
	root, _, ok := strings.Cut(file, "templates/")
	if !ok {
		return nil, false
	}
	texts := map[string][]byte{}
	for _, p := range files.paths() {
		if strings.HasPrefix(p, root+"templates/") {
			texts[p] = contents(files, p)
		}
	}
	return texts, true
}

// writtenInChart reports whether a template of the chart that holds file
// (its templates folder, helpers included) has a line that writes one of
// keys.
func writtenInChart(files fileSet, file string, keys []string) bool {
	if len(keys) == 0 {
		return false
	}
	texts, ok := chartTemplates(files, file)
	if !ok {
		return true // not a chart's template: no helper can be read
	}
	for _, t := range texts {
		for _, l := range bytes.SplitAfter(t, []byte("\n")) {
			for _, k := range keys {
				if writesKey(l, k) {
					return true
				}
			}
		}
	}
	return false
}

// mergeInsertions makes the changes of cs that only insert after one
// line (moved there from the ends of two mappings) one change: the line,
// then what each inserts, the deeper first, so that the keys of a mapping
// nested in another come before those of the outer one.
func mergeInsertions(cs []edit.Change) []edit.Change {
	type ins struct {
		indent int
		text   string
	}
	var out []edit.Change
	after := map[int][]ins{}
	anchor := map[int]string{}
	for _, c := range cs {
		first, rest, ok := strings.Cut(c.Text, "\n")
		if c.StartLine != c.EndLine || !ok || rest == "" {
			out = append(out, c)
			continue
		}
		if a, seen := anchor[c.StartLine]; seen && a != first {
			out = append(out, c)
			continue
		}
		anchor[c.StartLine] = first
		ind, _, _ := yamlLineShape(rest)
		after[c.StartLine] = append(after[c.StartLine], ins{ind, rest})
	}
	for line, list := range after {
		slices.SortStableFunc(list, func(a, b ins) int { return b.indent - a.indent })
		text := anchor[line] + "\n"
		for _, x := range list {
			text += x.text
		}
		out = append(out, edit.Change{StartLine: line, EndLine: line, Text: text})
	}
	slices.SortFunc(out, func(a, b edit.Change) int { return a.StartLine - b.StartLine })
	return out
}

// moveInsertion maps change c, which mapChange could not, as one of its
// movedInsertions: the first whose lines mapChange maps (the line it
// follows and the line after it literal), under a mapping whose parent
// line (the key above it, or its sequence item's dash line) is a line of
// the same template that renders once (see locatedOf), and with every
// template block (if, with, range) opened between that line and the
// insertion closed before it: what is inserted is then written whenever
// its mapping is, whatever the values.
func moveInsertion(c edit.Change, lit, located literalLines, rendered [][]byte, files fileSet) (mappedChange, bool) {
	moved, parent := movedInsertions(c, rendered)
	top, ok := located[parent]
	if len(moved) == 0 || !ok {
		return mappedChange{}, false
	}
	reached := func(tc mappedChange, last int) bool {
		if tc.file != top.file || last < top.line {
			return false
		}
		tmpl := bytes.SplitAfter(contents(files, tc.file), []byte("\n"))
		return blocksClosed(tmpl[top.line-1 : last])
	}
	// Written after the line before it, or else before the entry after
	// it (last is the template line the keys follow), beside the
	// template's own lines; only where none of the places is, after an
	// entry a template line writes (see mapAfterLocated), so that a
	// sequence the keys start can still take items after its literal
	// last line.
	for _, m := range moved {
		tc, ok := mapChange(m, lit, rendered, files, true)
		last := tc.at
		if !ok {
			tc, ok = mapBeforeNext(m, lit, rendered, files)
			last = tc.at - 1
		}
		if ok && reached(tc, last) {
			return tc, true
		}
	}
	for _, m := range moved {
		if tc, ok := mapAfterLocated(m, located, rendered, files); ok && reached(tc, tc.at) {
			return tc, true
		}
	}
	return mappedChange{}, false
}

// mapAfterLocated maps change c, which inserts keys after rendered line
// c.StartLine, as the same keys inserted after the template line that
// wrote that line when it is a located line (see locatedOf: `heritage:
// {{ .Release.Service }}`, the last of labels that each template line
// writes) holding a whole entry of the mapping the keys go into: the
// keys then come out right after it, wherever it does. The line must not
// trim the line break after it (`-}}`), and no other line of the
// mapping in the template may write one of the keys. Whether the line is
// reached whenever the mapping is written is for moveInsertion to check
// (blocksClosed).
func mapAfterLocated(c edit.Change, located literalLines, rendered [][]byte, files fileSet) (mappedChange, bool) {
	a := c.StartLine
	if c.EndLine != a || a < 1 || a > len(rendered) {
		return mappedChange{}, false
	}
	at, ok := located[a]
	if !ok {
		return mappedChange{}, false
	}
	inserted, ok := strings.CutPrefix(c.Text, string(rendered[a-1]))
	if !ok || inserted == "" {
		return mappedChange{}, false
	}
	want, _, _ := yamlLineShape(inserted)
	if ind, dash, _ := yamlLineShape(string(rendered[a-1])); dash || ind != want || !oneLineEntry(string(rendered[a-1])) {
		return mappedChange{}, false // not a whole entry of the keys' mapping: an item's first key, a key within an entry, or one whose value other values may continue on the lines after it
	}
	tmpl := bytes.SplitAfter(contents(files, at.file), []byte("\n"))
	if at.line < 1 || at.line > len(tmpl) || !bytes.HasSuffix(tmpl[at.line-1], []byte("\n")) ||
		bytes.HasSuffix(bytes.TrimRight(tmpl[at.line-1], " \t\r\n"), []byte("-}}")) {
		return mappedChange{}, false
	}
	if at.line < len(tmpl) && !startsOwnLine(tmpl[at.line]) {
		return mappedChange{}, false // the next line trims the line break before it and may write onto the line (`{{- if .Values.digest }}@…`)
	}
	line := string(tmpl[at.line-1])
	if ind, _, _ := yamlLineShape(line); ind != want {
		return mappedChange{}, false // indented as it is included (`include … | nindent 8`): the keys would not be
	}
	keys, _ := insertedKeys(line+inserted, map[string]bool{line: true})
	if writtenElsewhere(tmpl, at.line, at.line, at.line, want, keys) {
		return mappedChange{}, false
	}
	return mappedChange{file: at.file, at: at.line,
		change: edit.Change{StartLine: at.line, EndLine: at.line, Text: line + inserted}}, true
}

// oneLineEntry reports whether a rendered line is a mapping entry whose
// value is a scalar written whole on it (`heritage: Helm`), not `key:`
// (whose value other values may write on the lines after it), a block
// scalar's header, or a flow collection left open.
func oneLineEntry(line string) bool {
	_, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
	v = strings.TrimSpace(v)
	switch {
	case !ok || v == "" || strings.HasPrefix(v, "#") || strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">"):
		return false
	case strings.HasPrefix(v, "["):
		return strings.HasSuffix(v, "]")
	case strings.HasPrefix(v, "{"):
		return strings.HasSuffix(v, "}")
	}
	return true
}

// startsOwnLine reports whether what template line l writes starts on a
// line of its own whatever it trims before it: the line does not trim
// (`{{-`), or it is only actions that open, branch or close blocks (their
// text starts after the line break that ends them), comments, or one
// action that indents what it writes with nindent.
func startsOwnLine(l []byte) bool {
	t := strings.TrimSpace(string(l))
	if !strings.HasPrefix(t, "{{-") {
		return true
	}
	if !strings.HasSuffix(t, "}}") {
		return false
	}
	rest := templateComment.ReplaceAllString(t, "")
	rest = templateBlockAction.ReplaceAllString(rest, "")
	if strings.TrimSpace(rest) == "" {
		return true
	}
	return strings.Count(t, "{{") == 1 && strings.Contains(t, "nindent")
}

// templateBlock matches the actions that open, branch and close a
// template block; templateComment a comment action, whose text may quote
// them.
var (
	templateBlock   = regexp.MustCompile(`\{\{-?\s*(if|with|range|define|block|else|end)\b`)
	templateComment = regexp.MustCompile(`\{\{-?\s*/\*.*?\*/\s*-?\}\}`)
	// templateBlockAction matches a whole block action.
	templateBlockAction = regexp.MustCompile(`\{\{-?\s*(if|with|range|else|end)\b[^}]*-?\}\}`)
)

// blockActions returns the block actions of one template line, in order:
// "if", "with", "range", "define", "block", "else" or "end".
func blockActions(line []byte) []string {
	line = templateComment.ReplaceAll(line, nil)
	var out []string
	for _, m := range templateBlock.FindAllSubmatch(line, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// blocksClosed reports whether every template block opened in lines is
// closed in them, and none closed there was opened before them.
func blocksClosed(lines [][]byte) bool {
	depth := 0
	for _, l := range lines {
		for _, a := range blockActions(l) {
			switch a {
			case "else":
				if depth == 0 {
					return false // a branch of a block opened before them
				}
			case "end":
				depth--
			default:
				depth++
			}
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// blockStack returns the template blocks open at line of tmpl (numbered
// from 1): the line each opened on, or the line of its branch ("else")
// the line is in, outermost first. With dot set, only the blocks that set
// the template's dot (with, range, define, block), not if.
func blockStack(tmpl [][]byte, line int, dot bool) []int {
	type open struct {
		line int
		kind string
	}
	var st []open
	for l := 1; l < line && l <= len(tmpl); l++ {
		for _, a := range blockActions(tmpl[l-1]) {
			switch {
			case a == "end" && len(st) > 0:
				st = st[:len(st)-1]
			case a == "else" && len(st) > 0:
				st[len(st)-1].line = l
			case a != "end" && a != "else":
				st = append(st, open{l, a})
			}
		}
	}
	var out []int
	for _, o := range st {
		if !dot || o.kind != "if" {
			out = append(out, o.line)
		}
	}
	return out
}

// movedInsertions returns change c, when it only inserts keys into a
// mapping after its anchor line (edit.Changes anchors an insertion on the
// line before it), as the same keys inserted after its anchor and after
// each other entry of that mapping, the nearest first (c's own anchor
// first: moved, it may still be written before the entry after it, see
// mapBeforeNext), and the rendered line of the
// mapping's parent (0 for none). A mapping's keys have no order that
// the object sees, and templates often end a mapping with an action
// (`{{- toYaml .Values.resources | nindent 12 }}`, `{{- with
// .Values.tolerations }}`), after which nothing is written as it is;
// between two of its earlier entries the template's own lines often are
// (mapChange decides). Inserting before a sequence item's first key
// would leave its dash: that place is not offered.
func movedInsertions(c edit.Change, rendered [][]byte) (moved []edit.Change, parent int) {
	if c.StartLine != c.EndLine || c.StartLine < 1 || c.StartLine > len(rendered) {
		return nil, 0
	}
	inserted, ok := strings.CutPrefix(c.Text, string(rendered[c.StartLine-1]))
	if !ok || inserted == "" || !strings.HasSuffix(inserted, "\n") {
		return nil, 0
	}
	k := -1
	for _, l := range strings.SplitAfter(strings.TrimSuffix(inserted, "\n"), "\n") {
		ind, dash, _ := yamlLineShape(l)
		switch {
		case ind < 0:
		case k < 0 && (dash || !strings.Contains(l, ":")):
			return nil, 0 // not a key of a mapping first
		case k < 0:
			k = ind
		case ind < k:
			return nil, 0
		}
	}
	if k < 0 {
		return nil, 0
	}
	// The mapping's entries around the anchor: lines whose key is at
	// column k (a sequence item there is a value of the entry above it,
	// written compact), from its first (a line "- key:" whose key is at k,
	// or the first after its parent's line) to its last.
	var starts []int
	dashLine := 0 // the item's own "- key:" line, when the mapping is a sequence item
	for l := c.StartLine; l >= 1; l-- {
		ind, dash, col := yamlLineShape(string(rendered[l-1]))
		if ind < 0 || ind > k || (ind == k && dash) {
			continue
		}
		if ind == k {
			starts = append(starts, l)
			continue
		}
		if dash && col == k {
			starts, dashLine = append(starts, l), l
		}
		parent = l
		break
	}
	end := c.StartLine
	for l := c.StartLine + 1; l <= len(rendered); l++ {
		ind, dash, _ := yamlLineShape(string(rendered[l-1]))
		if ind < 0 {
			continue
		}
		if ind < k || (ind == k && !dash && isDocumentMarker(rendered[l-1])) {
			break
		}
		if ind == k && !dash {
			starts = append(starts, l)
		}
		end = l
	}
	anchors := map[int]bool{end: true}
	for _, st := range starts {
		if st != dashLine { // before the dash line is outside the item
			anchors[st-1] = true
		}
	}
	var out []edit.Change
	for a := range anchors {
		if a < 1 || a > len(rendered) || !bytes.HasSuffix(rendered[a-1], []byte("\n")) {
			continue
		}
		out = append(out, edit.Change{StartLine: a, EndLine: a, Text: string(rendered[a-1]) + inserted})
	}
	slices.SortFunc(out, func(x, y edit.Change) int {
		dx, dy := max(x.StartLine-c.StartLine, c.StartLine-x.StartLine), max(y.StartLine-c.StartLine, c.StartLine-y.StartLine)
		if dx != dy {
			return dx - dy
		}
		return x.StartLine - y.StartLine
	})
	return out, parent
}

// yamlLineShape returns the indentation of a rendered line, whether it
// starts a sequence item ("- "), and the column its content after the
// dash starts at; indent -1 for a blank or comment line.
func yamlLineShape(line string) (indent int, dash bool, col int) {
	t := strings.TrimLeft(line, " ")
	indent = len(line) - len(t)
	if strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#") {
		return -1, false, 0
	}
	if t == "-\n" || strings.HasPrefix(t, "- ") {
		rest := strings.TrimLeft(t[1:], " ")
		return indent, true, indent + len(t) - len(rest)
	}
	return indent, false, indent
}

// documentAround returns the first and last lines (numbered from 1) of the
// document of tmpl's lines that holds lines first through last: those
// between the "---" lines around them, or the file's ends.
func documentAround(tmpl [][]byte, first, last int) (from, to int) {
	from, to = 1, len(tmpl)
	for l := first - 1; l >= 1; l-- {
		if isDocumentMarker(tmpl[l-1]) {
			from = l + 1
			break
		}
	}
	for l := last + 1; l <= len(tmpl); l++ {
		if isDocumentMarker(tmpl[l-1]) {
			to = l - 1
			break
		}
	}
	return from, to
}

// isDocumentMarker reports whether line is a "---" line (a comment may
// follow it).
func isDocumentMarker(line []byte) bool {
	t := bytes.TrimRight(line, " \t\r\n")
	return bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- "))
}

// insertedKeys returns the keys of the outermost lines of text that are
// not among old (the lines a change replaces): the keys it inserts, not
// those of the sequence items it inserts; and their indentation.
func insertedKeys(text string, old map[string]bool) ([]string, int) {
	var lines []string
	indent := -1
	for _, l := range strings.SplitAfter(text, "\n") {
		if l == "" || old[l] || strings.TrimSpace(l) == "" {
			continue
		}
		lines = append(lines, l)
		if n := len(l) - len(strings.TrimLeft(l, " ")); indent < 0 || n < indent {
			indent = n
		}
	}
	var keys []string
	for _, l := range lines {
		if len(l)-len(strings.TrimLeft(l, " ")) != indent {
			continue
		}
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "- ") || t == "-" {
			continue // an item of a sequence: another item may hold the same keys
		}
		if k, _, ok := strings.Cut(t, ":"); ok && k != "" && !strings.ContainsAny(k, " #{") {
			keys = append(keys, k)
		}
	}
	return keys, indent
}

// writesKey reports whether a template line writes key k (as "k:" or
// "- k:", in the text or through an action's output around it).
func writesKey(line []byte, k string) bool {
	t := strings.TrimPrefix(strings.TrimSpace(string(line)), "- ")
	return strings.HasPrefix(t, k+":")
}

// consecutive returns the template line of rendered line from when lines
// from through to are literal lines of consecutive lines of one file.
func consecutive(lit literalLines, from, to int) (templateLine, bool) {
	first, ok := lit[from]
	if !ok {
		return templateLine{}, false
	}
	for l := from + 1; l <= to; l++ {
		t, ok := lit[l]
		if !ok || t.file != first.file || t.line != first.line+(l-from) {
			return templateLine{}, false
		}
	}
	return first, true
}

// literalOf returns the literal lines of document doc, worked out once
// per render: which template lines render once in the whole render is
// counted over all of its documents.
func (pl *placed) literalOf(files fileSet, doc int) literalLines {
	if pl.lits == nil {
		pl.lits, pl.located = pl.literalLinesOfRender(files)
	}
	return pl.lits[doc]
}

// locatedOf returns the lines of document doc that hold one key whose
// template line renders only them, literal or not (`- name: {{
// .Chart.Name }}`): where the template wrote each of them.
func (pl *placed) locatedOf(files fileSet, doc int) literalLines {
	if pl.lits == nil {
		pl.lits, pl.located = pl.literalLinesOfRender(files)
	}
	return pl.located[doc]
}

// literalLinesOfRender is literalOf and locatedOf for every document of
// the render.
func (pl *placed) literalLinesOfRender(files fileSet) (lits, located []literalLines) {
	r := pl.render
	type renderedLine struct{ doc, line int }
	from := map[templateLine]map[renderedLine]bool{}
	keys := map[renderedLine]int{} // keys on each rendered line
	for d := range r.Documents {
		if d >= len(r.Maps) {
			break
		}
		root := pl.renderedDoc(d)
		m := r.Map(d)
		keyLines(root, func(line int, p string) {
			keys[renderedLine{d, line}]++
			for _, loc := range m[p] {
				if loc.Kind == Template && !loc.Inherited && loc.Line > 0 {
					t := templateLine{loc.File, loc.Line}
					if from[t] == nil {
						from[t] = map[renderedLine]bool{}
					}
					from[t][renderedLine{d, line}] = true
				}
			}
		})
	}
	byFile := map[string][][]byte{}
	lineOf := func(t templateLine) ([]byte, bool) {
		ls, ok := byFile[t.file]
		if !ok {
			ls = bytes.SplitAfter(contents(files, t.file), []byte("\n"))
			byFile[t.file] = ls
		}
		if t.line > len(ls) {
			return nil, false
		}
		return ls[t.line-1], true
	}
	out := make([]literalLines, len(r.Documents))
	located = make([]literalLines, len(r.Documents))
	docLines := make([][][]byte, len(r.Documents))
	for t, rs := range from {
		if len(rs) != 1 {
			continue // rendered more than once, or two keys of one line
		}
		for rl := range rs {
			if keys[rl] == 1 {
				if located[rl.doc] == nil {
					located[rl.doc] = literalLines{}
				}
				located[rl.doc][rl.line] = t
			}
		}
		tl, ok := lineOf(t)
		if !ok || bytes.Contains(tl, []byte("{{")) || bytes.Contains(tl, []byte("}}")) || !bytes.HasSuffix(tl, []byte("\n")) {
			continue
		}
		for rl := range rs {
			if keys[rl] > 1 {
				continue // two keys on one line (a flow mapping)
			}
			if docLines[rl.doc] == nil {
				docLines[rl.doc] = bytes.SplitAfter(r.Documents[rl.doc].YAML, []byte("\n"))
			}
			ls := docLines[rl.doc]
			if rl.line > len(ls) || !bytes.Equal(ls[rl.line-1], tl) {
				continue
			}
			if out[rl.doc] == nil {
				out[rl.doc] = literalLines{}
			}
			out[rl.doc][rl.line] = t
		}
	}
	return out, located
}

// keyLines calls fn with the line and the path (as FormatPath writes it)
// of every mapping key and every scalar item of a block sequence (`-
// --verbose`, `- pod-template-hash`) under n (at most maxKeyDepth deep), in document
// order. Each path is its parent's with one segment written after it.
func keyLines(n *yaml.Node, fn func(line int, p string)) {
	var walk func(n *yaml.Node, p string, depth int)
	walk = func(n *yaml.Node, p string, depth int) {
		if n == nil || depth > maxKeyDepth {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				kp := joinPath(p, Segment{Key: n.Content[j].Value, Index: -1})
				fn(n.Content[j].Line, kp)
				walk(n.Content[j+1], kp, depth+1)
			}
		case yaml.SequenceNode:
			for i, it := range n.Content {
				ip := joinPath(p, Segment{Index: i})
				if it.Kind == yaml.ScalarNode && n.Style&yaml.FlowStyle == 0 {
					fn(it.Line, ip) // a flow sequence's items share its key's line
				}
				walk(it, ip, depth+1)
			}
		}
	}
	walk(n, "", 0)
}

// maxKeyDepth bounds how deep keyLines walks a rendered document.
const maxKeyDepth = 100
