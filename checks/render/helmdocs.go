package render

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/checks/render/internal/tmplmark"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/internal/plural"
)

// helmDocs turns the engine's output into documents and source maps.
type helmDocs struct {
	r    *rendered.Render
	opts rendered.Options
	idx  *templateIndex
	tbl  *tmplmark.Table
	vm   *valuesMap
	// stream is the render's stream as it is written: each document's
	// text is written once, here, and parsed where it lies (a document
	// dropped after its parse is cut off again).
	stream []byte
	lines  int   // lines written to stream
	at     []int // per document, the offset of its text in stream
	full   bool
	// lost says why no template's lines can be traced in this render
	// (the marked render failed); empty when they can.
	lost string
	// noMaps gives every document an empty source map
	// (rendered.Options.StreamOnly).
	noMaps bool
	// one, when not nil, is the output: the marked render's, by template,
	// read into lines and their marks.
	one map[string]oneText
	// toMap is, per document, what its source map is made from when it
	// is first read (rendered.Render.MapOnUse).
	toMap []docToMap
	// priorBy indexes rendered.Options.Prior by Source.
	priorBy map[string][]int
}

// docToMap is what the source map of one document is made from.
type docToMap struct {
	info     tplInfo
	from     int // the document's first line in its template's output
	firstTpl tplLines
	occs     []occurrence
}

// tplLines are, for each line of a template's output, the template line
// its first template mark names, if it has one: where a source map places
// a key written on that line. They are held for the maps made on use, so
// they are held pointer-free, 8 bytes a line: a pointer to each line's
// first mark kept every line's marks alive, about 56 bytes a line of a
// CRD, whose key lines all have a mark (some 10 MB of the live heap while
// the charts of the corpus render, and after); an index per line into a
// table of the marked lines' marks took 8 bytes a line and 16 more a
// marked one, and a CRD's lines are nearly all marked.
type tplLines []tplMark

// tplMark is a template mark's template (an index into the template
// index's infos) and 1-based line, as file+1 and line: the zero tplMark is
// no mark.
type tplMark struct{ file1, line int32 }

// newTplLines reads the first template mark of each line of marks
// (firstTplMark).
func newTplLines(marks [][]tmplmark.Mark) tplLines {
	t := make(tplLines, len(marks))
	for i, ms := range marks {
		t[i] = firstTplMark(ms)
	}
	return t
}

// firstTplMark returns the first template mark of one line's marks, the
// zero tplMark when it has none. Marks are read from digits, so neither
// number is negative. A template index past int32 is kept as one past
// every template, which names no template, as the larger index did; a
// line past int32 (no template file read within its bounds has one) as
// the largest int32.
func firstTplMark(ms []tmplmark.Mark) tplMark {
	for j := range ms {
		if ms[j].Binding < 0 {
			return tplMark{file1: int32(min(max(ms[j].File, -1), math.MaxInt32-1) + 1), line: int32(min(ms[j].Line, math.MaxInt32))}
		}
	}
	return tplMark{}
}

// at returns the template mark of line l, if it has one.
func (t tplLines) at(l int) (tplMark, bool) {
	if l < 0 || l >= len(t) || t[l].file1 == 0 {
		return tplMark{}, false
	}
	return t[l], true
}

// template returns the index (into the template index's infos) of the
// mark's template.
func (mk tplMark) template() int { return int(mk.file1) - 1 }

// occurrence is one binding's emitted region in a template's output, in
// stripped coordinates: 0-based line index and rune column.
type occurrence struct {
	binding     int
	bLine, bCol int
	eLine, eCol int
}

func (b *helmDocs) build(out, marked map[string]string) {
	keys := make([]string, 0, len(out)+len(b.one))
	for k := range out {
		keys = append(keys, k)
	}
	for k := range b.one {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.stream = make([]byte, 0, streamCap(out, b.one))
	for _, key := range keys {
		info := b.info(key)
		text, one := out[key], b.one[key]
		if path.Base(key) == "NOTES.txt" {
			b.r.Skipped = append(b.r.Skipped, rendered.Skipped{File: info.file, Reason: "NOTES.txt is shown to whoever installs, not applied"})
			continue
		}
		if b.one != nil && blank(one.lines) || b.one == nil && strings.TrimSpace(text) == "" {
			b.r.Skipped = append(b.r.Skipped, dormant(info.file, info.text))
			continue
		}
		if b.full {
			b.r.Skipped = append(b.r.Skipped, rendered.Skipped{File: info.file, Reason: "render bound reached"})
			continue
		}
		var lines []string
		var firstTpl tplLines
		var occs []occurrence
		lost := b.lost
		if b.one != nil {
			lines, firstTpl, occs = one.lines, one.firstTpl, one.occs
		} else if m, ok := marked[key]; ok {
			lines = strings.Split(text, "\n")
			lineMarks, missed := alignMarks(lines, strings.Split(m, "\n"))
			firstTpl, occs = newTplLines(lineMarks), occurrences(lineMarks)
			if missed > 0 {
				lost = fmt.Sprintf("%s of its rendered lines came out otherwise in the render that traces template lines, so their keys are placed at the nearest line traced", plural.Count(missed, "line", "lines"))
			}
		} else {
			lines = strings.Split(text, "\n")
			if lost == "" && marked != nil {
				lost = "the render that traces template lines has no output for it"
			}
		}
		n := len(b.r.Documents)
		b.file(info, lines, firstTpl, occs)
		if lost != "" && len(b.r.Documents) > n {
			b.r.Unmapped = append(b.r.Unmapped, rendered.Skipped{File: info.file, Reason: lost})
		}
	}
	for src := range b.idx.chains {
		for name, p := range src.templates {
			if strings.HasPrefix(path.Base(name), "_") {
				continue
			}
			if strings.HasPrefix(name, "templates/") && !b.emitted(p) && !b.skippedFile(p) {
				b.r.Skipped = append(b.r.Skipped, dormant(p, b.idx.text(p)))
			}
		}
		prefix := src.dir + "/"
		for _, f := range src.files {
			if rel := strings.TrimPrefix(f, prefix); strings.HasPrefix(rel, "crds/") {
				b.r.Skipped = append(b.r.Skipped, rendered.Skipped{File: f, Reason: "crds/ files are installed as they are, not templated; review them as plain manifests"})
			}
		}
	}
	b.r.Stream = b.stream[:len(b.stream):len(b.stream)]
	shareStream(b.r, b.at)
	// The maps made on use keep b, its chart tree and values files, but
	// need neither the stream (the render holds it) nor the folder's other
	// files.
	b.stream, b.at, b.one = nil, nil, nil
	b.idx.l.files, b.idx.l.charts = nil, nil
	dropTexts(b.idx.root)
	if !b.noMaps {
		b.r.MapOnUse(b.mapDoc)
	}
}

// dropTexts lets go of the text of every file of chart tree c (its raw
// files, templates, .Files and schema), which the maps made on use do
// not read: they walk the tree's charts and find each one's source and
// values file through it. Read from disk on use, those texts were held by
// each finished render, 17 MB of the 50 renders of the corpus's charts.
func dropTexts(c *chart.Chart) {
	if c == nil {
		return
	}
	for _, fs := range [][]*common.File{c.Raw, c.Templates, c.Files} {
		for _, f := range fs {
			f.Data = nil
		}
	}
	c.Schema = nil
	for _, d := range c.Dependencies() {
		dropTexts(d)
	}
}

// streamCap is about the size of the stream made of a render's output
// (out, or the marked render's lines one): every template's text, and a
// "---" and "# Source:" line for each. A document split off within a
// template adds its own two lines; append grows the stream for them.
func streamCap(out map[string]string, one map[string]oneText) int {
	n := 0
	for k, t := range out {
		n += len(t) + len(k) + len("---\n# Source: \n") + 32
	}
	for k, t := range one {
		n += t.size + len(k) + len("---\n# Source: \n") + 32
	}
	return n
}

// blank reports whether every line is white space only (the text is
// strings.TrimSpace-empty).
func blank(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// mapDoc makes the source map of document doc, parsing its text again
// (the yaml.v3 tree of every document, held until its map is made, would
// be larger than the maps).
func (b *helmDocs) mapDoc(doc int) rendered.DocMap {
	if doc < 0 || doc >= len(b.toMap) || doc >= len(b.r.Documents) {
		return nil
	}
	node, err := parseYAML(b.r.Documents[doc].YAML)
	if err != nil || len(node.Content) == 0 {
		return nil // parsed when the document was made: not reached
	}
	t := b.toMap[doc]
	return b.sourceMap(t.info, node.Content[0], b.r.Documents[doc].YAML, t.from, t.firstTpl, t.occs)
}

// shareStream points each document's YAML at its copy in the render's
// stream (at[i] is document i's offset there), so the text is held once.
func shareStream(r *rendered.Render, at []int) {
	for i := range r.Documents {
		d := &r.Documents[i]
		if i < len(at) && at[i]+len(d.YAML) <= len(r.Stream) {
			if text := r.Stream[at[i] : at[i]+len(d.YAML) : at[i]+len(d.YAML)]; string(text) == string(d.YAML) {
				d.YAML = text
			}
		}
	}
}

func (b *helmDocs) emitted(file string) bool {
	for _, d := range b.r.Documents {
		if d.Source == file {
			return true
		}
	}
	return false
}

func (b *helmDocs) skippedFile(file string) bool {
	for _, s := range b.r.Skipped {
		if s.File == file {
			return true
		}
	}
	return false
}

func (b *helmDocs) info(key string) tplInfo {
	if i, ok := b.idx.byKey[key]; ok {
		return b.idx.infos[i]
	}
	return tplInfo{file: key}
}

// file splits one template's output into documents and maps each:
// firstTpl holds its lines' first template marks, occs its bindings'
// occurrences.
func (b *helmDocs) file(info tplInfo, lines []string, firstTpl tplLines, occs []occurrence) {
	start := 0
	for i := 0; i <= len(lines); i++ {
		if i < len(lines) && !isSeparator(lines[i]) {
			continue
		}
		b.doc(info, lines, start, i, firstTpl, occs)
		start = i + 1
		if i == len(lines) {
			break
		}
		if rest := afterSeparator(lines[i]); rest != "" {
			// Text glued to the marker ("---# comment", left when a
			// template's {{- trims the newline after "---") opens the
			// next document, as Helm splits it. A comment keeps its
			// column; content starts the line, where Helm puts it.
			if strings.HasPrefix(rest, "#") {
				rest = strings.Repeat(" ", len(lines[i])-len(rest)) + rest
			}
			lines[i] = rest
			start = i
		}
	}
}

// isSeparator reports whether a line of template output ends a document as
// Helm splits a manifest (releaseutil.SplitManifests): any line that starts
// with "---", whatever follows it.
func isSeparator(line string) bool {
	return strings.HasPrefix(line, "---")
}

// afterSeparator returns what follows a separator line's "---" and the
// white space after it: Helm keeps it as the start of the next document.
func afterSeparator(line string) string {
	return strings.TrimRight(strings.TrimLeft(strings.TrimPrefix(line, "---"), " \t"), " \t\r")
}

// doc adds lines[from:to] as a document when it holds an object.
func (b *helmDocs) doc(info tplInfo, lines []string, from, to int, firstTpl tplLines, occs []occurrence) {
	for from < to && strings.TrimSpace(lines[from]) == "" {
		from++
	}
	for to > from && strings.TrimSpace(lines[to-1]) == "" {
		to--
	}
	if from >= to {
		return
	}
	// The document is written to the stream first, after its "---" and
	// "# Source:" lines, and parsed there; a document left out is cut off
	// again.
	start := len(b.stream)
	b.stream = append(b.stream, "---\n# Source: "...)
	b.stream = append(b.stream, info.file...)
	b.stream = append(b.stream, '\n')
	textAt := len(b.stream)
	for _, l := range lines[from:to] {
		b.stream = append(b.stream, l...)
		b.stream = append(b.stream, '\n')
	}
	data := b.stream[textAt:len(b.stream):len(b.stream)]
	keep := false
	defer func() {
		if !keep {
			b.stream = b.stream[:start]
		}
	}()
	d, known := b.prior(info.file, data)
	if known {
		// A document an earlier render of the chart kept, text for text:
		// the parse below would find what it found.
		keep = b.keep(d, start, data, to-from, info, from, firstTpl, occs)
		return
	}
	node, err := parseYAML(data)
	if err != nil {
		pr := rendered.Problem{File: info.file, Message: fmt.Sprintf("rendered output is not YAML: %v", err), Refused: true}
		if loc, why, ok := b.notYAMLAt(err, from, firstTpl); ok {
			pr.File, pr.Line, pr.Column = loc.File, loc.Line, loc.Column
			pr.Message = "the line this template line writes is not YAML: " + why
		}
		b.r.Problems = append(b.r.Problems, pr)
		return
	}
	if len(node.Content) == 0 || node.Content[0].Kind == yaml.ScalarNode && node.Content[0].Tag == "!!null" {
		return // comments only
	}
	root := node.Content[0]
	d = rendered.Document{Source: info.file, YAML: data}
	var head struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name        string            `yaml:"name"`
			Namespace   string            `yaml:"namespace"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"metadata"`
	}
	_ = root.Decode(&head)
	d.APIVersion, d.Kind, d.Name, d.Namespace = head.APIVersion, head.Kind, head.Metadata.Name, head.Metadata.Namespace
	if hook := head.Metadata.Annotations["helm.sh/hook"]; strings.Contains(hook, "test") {
		b.r.Skipped = append(b.r.Skipped, rendered.Skipped{File: info.file, Reason: fmt.Sprintf("helm test hook %s/%s dropped: test pods are short-lived", d.Kind, d.Name)})
		return
	}
	keep = b.keep(d, start, data, to-from, info, from, firstTpl, occs)
}

// keep adds d as the render's next document unless a bound is reached,
// and says whether it did. Its text, data, ends the stream, after the
// "---" and "# Source:" lines written from start; it is n lines of its
// template's output, the first of them line from.
func (b *helmDocs) keep(d rendered.Document, start int, data []byte, n int, info tplInfo, from int, firstTpl tplLines, occs []occurrence) bool {
	if b.full {
		return false // one problem per render, not one per dropped document
	}
	if len(b.r.Documents) >= b.opts.MaxObjects || start+len(data) > b.opts.MaxOutputBytes {
		b.full = true
		b.r.Problems = append(b.r.Problems, rendered.Problem{File: path.Join(b.r.Root, "Chart.yaml"), Bound: true, Message: fmt.Sprintf("render bound reached (%d objects, %d bytes); the rest is dropped", b.opts.MaxObjects, b.opts.MaxOutputBytes)})
		return false
	}
	b.lines += 2
	d.Line = b.lines + 1
	b.at = append(b.at, len(b.stream)-len(data))
	b.lines += n
	b.r.Documents = append(b.r.Documents, d)
	if b.noMaps {
		b.r.Maps = append(b.r.Maps, rendered.DocMap{})
		return true
	}
	b.toMap = append(b.toMap, docToMap{info: info, from: from, firstTpl: firstTpl, occs: occs})
	return true
}

// prior returns the document of rendered.Options.Prior that template
// file rendered as text, as this render's document of that text: its
// kind and names are the ones the earlier render's parse found.
func (b *helmDocs) prior(file string, text []byte) (rendered.Document, bool) {
	if !b.noMaps || len(b.opts.Prior) == 0 {
		return rendered.Document{}, false
	}
	if b.priorBy == nil {
		b.priorBy = map[string][]int{}
		for i, d := range b.opts.Prior {
			b.priorBy[d.Source] = append(b.priorBy[d.Source], i)
		}
	}
	for _, i := range b.priorBy[file] {
		if p := b.opts.Prior[i]; bytes.Equal(p.YAML, text) {
			return rendered.Document{Source: file, YAML: text, APIVersion: p.APIVersion, Kind: p.Kind, Name: p.Name, Namespace: p.Namespace}, true
		}
	}
	return rendered.Document{}, false
}

// occurrences pairs the begin and end marks of bindings, in output order.
func occurrences(marks [][]tmplmark.Mark) []occurrence {
	var r occurrenceReader
	for line, ms := range marks {
		r.line(line, ms)
	}
	return r.out
}

// occurrenceReader pairs the begin and end marks of bindings as a
// template's lines are read, in order; out holds the pairs closed so far.
// Its zero value is ready to use.
type occurrenceReader struct {
	open map[int]occurrence
	out  []occurrence
}

// line reads the marks ms of line number line.
func (r *occurrenceReader) line(line int, ms []tmplmark.Mark) {
	for _, m := range ms {
		if m.Binding < 0 {
			continue
		}
		if m.Begin {
			if r.open == nil {
				r.open = map[int]occurrence{}
			}
			r.open[m.Binding] = occurrence{binding: m.Binding, bLine: line, bCol: m.Column}
			continue
		}
		if o, ok := r.open[m.Binding]; ok {
			o.eLine, o.eCol = line, m.Column
			r.out = append(r.out, o)
			delete(r.open, m.Binding)
		}
	}
}

type pos struct{ line, col int }

func (p pos) less(q pos) bool { return p.line < q.line || p.line == q.line && p.col < q.col }

// compare is -1, 0 or 1 as p is before, at or after q.
func (p pos) compare(q pos) int {
	if c := cmp.Compare(p.line, q.line); c != 0 {
		return c
	}
	return cmp.Compare(p.col, q.col)
}

// sourceMap maps every entry of a document, root parsed from text; from
// is the document's first line index in the template output.
func (b *helmDocs) sourceMap(info tplInfo, root *yaml.Node, text []byte, from int, firstTpl tplLines, occs []occurrence) rendered.DocMap {
	entries := walk(root)
	at := func(n *yaml.Node) pos { return pos{from + n.Line - 1, n.Column - 1} }
	lines := newLineIndex(text)
	rest := func(p pos) ([]byte, bool) { return lines.from(p.line-from, p.col) }
	m := rendered.DocMap{}
	docLoc := rendered.Location{File: info.file, Kind: Template}
	for _, e := range entries[1:] {
		if mk, ok := firstTpl.at(at(e.key).line); ok {
			l := b.templateLoc(mk)
			docLoc.Line, docLoc.Column = l.Line, l.Column
			break
		}
	}

	type region struct {
		occ    occurrence
		anchor *entry
	}
	var regions []region
	var calls []occurrence           // include and template actions, by where they open (innermost)
	occsOn := map[int][]occurrence{} // values actions by the line they begin on, in the order they begin
	for _, o := range occs {
		if !b.tbl.Bindings[o.binding].Call && o.bLine >= from {
			occsOn[o.bLine] = append(occsOn[o.bLine], o)
		}
	}
	for _, on := range occsOn {
		slices.SortFunc(on, func(a, b occurrence) int { return cmp.Compare(a.bCol, b.bCol) })
	}
	// The entries (indexes into entries) by where their values start, and
	// those with an empty null by their key's line: an action's anchor is
	// one whose value starts within what the action wrote (or at the
	// quote just before it), or whose null value it wrote on the key's
	// line, found among those, not among every entry (a document of
	// 80,000 keys took minutes).
	byValue := make([]int, 0, len(entries)-1)
	nullsOn := map[int][]int{}
	for i, e := range entries[1:] {
		byValue = append(byValue, i+1)
		if v := e.value; v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "" {
			nullsOn[at(e.key).line] = append(nullsOn[at(e.key).line], i+1)
		}
	}
	slices.SortStableFunc(byValue, func(i, j int) int { return at(entries[i].value).compare(at(entries[j].value)) })
	for _, o := range occs {
		begin, end := pos{o.bLine, o.bCol}, pos{o.eLine, o.eCol}
		if end.line < from {
			continue
		}
		if b.tbl.Bindings[o.binding].Call {
			calls = append(calls, o)
			continue
		}
		last := -1 // later entries are deeper or later; keep the last
		first, _ := slices.BinarySearchFunc(byValue, pos{begin.line, begin.col - 1}, func(i int, p pos) int { return at(entries[i].value).compare(p) })
		for _, i := range byValue[first:] {
			e := entries[i]
			kp, vp := at(e.key), at(e.value)
			if end.less(vp) {
				break
			}
			if i > last && (kp.less(begin) && !vp.less(begin) && !partOfScalar(e.value, rest, end) || e.key != e.value && quotedWhole(e.value, rest, vp, begin, end)) {
				last = i
			}
		}
		for _, i := range nullsOn[begin.line] {
			if i > last && emptyAfter(entries[i], at(entries[i].key), begin, end) {
				last = i
			}
		}
		var anchor *entry
		if last > 0 {
			anchor = entries[last]
		}
		if anchor == nil {
			if first := entries[0]; len(first.children) > 0 && !at(first.children[0].key).less(begin) && !end.less(at(first.children[0].key)) {
				anchor = first
			} else {
				continue
			}
		}
		regions = append(regions, region{o, anchor})
	}
	slices.SortStableFunc(calls, func(a, b occurrence) int { return (pos{a.bLine, a.bCol}).compare(pos{b.bLine, b.bCol}) })

	// The regions (indexes into regions, in order) by their anchor: an
	// entry's region is the last one anchored at it, or at an ancestor
	// with the entry's key within what the region's action wrote.
	byAnchor := map[*entry][]int{}
	for i, rg := range regions {
		byAnchor[rg.anchor] = append(byAnchor[rg.anchor], i)
	}
	for _, e := range entries[1:] {
		var locs []rendered.Location
		kp := at(e.key)
		mk, onTpl := firstTpl.at(kp.line)
		found := -1
		for a := e; a != nil; a = a.parent {
			on := byAnchor[a]
			for k := len(on) - 1; k >= 0 && on[k] > found; k-- {
				rg := regions[on[k]]
				if a == e || !kp.less(pos{rg.occ.bLine, rg.occ.bCol}) && !(pos{rg.occ.eLine, rg.occ.eCol}).less(kp) {
					found = on[k]
					break
				}
			}
		}
		if found >= 0 {
			rg := regions[found]
			bind := b.tbl.Bindings[rg.occ.binding]
			rel := e.path[len(rg.anchor.path):]
			vp := make([]seg, 0, len(bind.Path)+len(rel))
			for _, k := range bind.Path {
				vp = append(vp, seg{Key: k, Index: -1})
			}
			vp = append(vp, rel...)
			chain := b.idx.infos[bind.File].chain
			if loc, ok := b.vm.locate(b.idx, chain, vp); ok {
				locs = append(locs, loc)
			} else if !onTpl {
				// No values line holds it (a default of the template's
				// own): the action that wrote it is the line to edit.
				locs = append(locs, b.bindingLoc(bind))
			}
		}
		switch {
		case onTpl:
			locs = append(locs, b.templateLoc(mk))
			if len(locs) == 1 {
				locs = append(locs, b.valuesParts(e, at(e.value), rest, occsOn)...)
			}
		case len(locs) == 0:
			// A key a helper wrote whose own line is not known (its
			// output went through fromYaml and a merge): the include
			// that called the helper is where the author changes it.
			if c, ok := innermost(calls, kp); ok {
				locs = append(locs, b.bindingLoc(b.tbl.Bindings[c.binding]))
			}
		}
		if len(locs) > 0 {
			m[formatPath(e.path)] = locs
			if docLoc.Line == 0 && locs[len(locs)-1].Kind == Template && locs[len(locs)-1].File == info.file {
				docLoc.Line, docLoc.Column = locs[len(locs)-1].Line, locs[len(locs)-1].Column
			}
		}
	}
	m[""] = []rendered.Location{docLoc}
	return m
}

// valuesParts returns the ValuesPart locations of e's value, a scalar
// at vp written on one line by several actions, or by actions and the
// template's own text (rest gives the text from a position on): the
// values line of each action that writes within it, in the order they
// write. None when e's value is not such a scalar. occsOn holds each
// line's values actions in the order they begin.
func (b *helmDocs) valuesParts(e *entry, vp pos, rest func(pos) ([]byte, bool), occsOn map[int][]occurrence) []rendered.Location {
	v := e.value
	if v == nil || v.Kind != yaml.ScalarNode || len(occsOn[vp.line]) == 0 {
		return nil
	}
	end, ok := scalarEnd(v, rest, vp)
	if !ok {
		return nil
	}
	var out []rendered.Location
	on := occsOn[vp.line]
	first, _ := slices.BinarySearchFunc(on, vp.col, func(o occurrence, col int) int { return cmp.Compare(o.bCol, col) })
	for _, o := range on[first:] {
		if o.bCol >= end {
			break
		}
		if o.eLine != vp.line || o.eCol > end {
			continue
		}
		bind := b.tbl.Bindings[o.binding]
		path := make([]seg, len(bind.Path))
		for i, k := range bind.Path {
			path[i] = seg{Key: k, Index: -1}
		}
		if loc, ok := b.vm.locate(b.idx, b.idx.infos[bind.File].chain, path); ok && loc.Kind == Values {
			loc.Kind = rendered.ValuesPart
			out = append(out, loc)
		}
	}
	return out
}

// scalarEnd returns the rune column (0-based) just past the scalar v,
// which starts at vp (rest gives the text from there on); ok is false
// when it does not end on that line (or is a block scalar).
func scalarEnd(v *yaml.Node, rest func(pos) ([]byte, bool), vp pos) (int, bool) {
	col := vp.col
	text, ok := rest(vp)
	if !ok {
		return 0, false
	}
	switch {
	case v.Style&yaml.DoubleQuotedStyle != 0:
		for i := 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case '"':
				return col + utf8.RuneCount(text[:i+1]), true
			}
		}
	case v.Style&yaml.SingleQuotedStyle != 0:
		for i := 1; i < len(text); i++ {
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i++
					continue
				}
				return col + utf8.RuneCount(text[:i+1]), true
			}
		}
	case v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && bytes.HasPrefix(text, []byte(v.Value)):
		return col + utf8.RuneCountInString(v.Value), true
	}
	return 0, false
}

// partOfScalar reports whether an action that wrote the start of the
// scalar v wrote only part of it: on the line of the action's end (rest
// gives the text past a position), the scalar goes on past end ({{ .Values.image.repository }}:{{
// .Values.image.tag }}, {{ .Values.memory }}Mi). The values key of such an
// action does not say what the scalar is: a finding on it, its ":latest"
// written by another key or by the template, is placed on the template
// line, and a fix is not made by setting that key to the whole scalar. A
// scalar that goes on over several lines is taken as written whole.
func partOfScalar(v *yaml.Node, rest func(pos) ([]byte, bool), end pos) bool {
	if v == nil || v.Kind != yaml.ScalarNode || v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false
	}
	past, ok := rest(end)
	return ok && !scalarEnds(past)
}

// quotedWhole reports whether the quoted scalar v at vp, whose quotes the
// template writes, holds exactly what one action wrote, begin to end:
// image: "{{ .Values.image.ref }}". rest gives the text past a position.
func quotedWhole(v *yaml.Node, rest func(pos) ([]byte, bool), vp, begin, end pos) bool {
	if v == nil || v.Kind != yaml.ScalarNode || v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
		return false
	}
	q := byte('"')
	if v.Style&yaml.SingleQuotedStyle != 0 {
		q = '\''
	}
	if begin.line != vp.line || end.line != vp.line || begin.col != vp.col+1 {
		return false
	}
	open, ok := rest(vp)
	if !ok || len(open) == 0 || open[0] != q {
		return false
	}
	past, ok := rest(end)
	return ok && len(past) > 0 && past[0] == q && scalarEnds(past[1:])
}

// scalarEnds reports whether rest, what a line holds past a scalar's
// last written character, adds nothing to it: blanks, then the line's
// end, a comment, or a flow collection's , ] or }.
func scalarEnds(rest []byte) bool {
	t := bytes.TrimLeft(rest, " \t")
	if len(t) == 0 || t[0] == ',' || t[0] == ']' || t[0] == '}' || t[0] == '\r' {
		return true
	}
	return t[0] == '#' && len(t) < len(rest)
}

// lineIndex finds the lines of a text by their 0-based index, and a rune
// column's place in a line in constant time once the line is read: a
// line of 1 MB with thousands of keys is read once, not once a key.
type lineIndex struct {
	text   []byte
	starts []int
	// runes holds, for each line read that is not ASCII, the byte offset
	// of each of its runes; ascii the lines read that are.
	runes map[int][]int32
	ascii map[int]bool
}

// newLineIndex indexes the lines of text.
func newLineIndex(text []byte) *lineIndex {
	starts := []int{0}
	for i, c := range text {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{text: text, starts: starts, runes: map[int][]int32{}, ascii: map[int]bool{}}
}

// from returns what line i holds from rune column col (0-based) on; ok
// is false past the line or the text.
func (x *lineIndex) from(i, col int) ([]byte, bool) {
	line := x.line(i)
	if col < 0 || col > len(line) {
		return nil, false
	}
	if !x.ascii[i] && x.runes[i] == nil {
		ascii := true
		for _, c := range line {
			if c >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
		if ascii {
			x.ascii[i] = true
		} else {
			offs := make([]int32, 0, len(line))
			for off := range string(line) {
				offs = append(offs, int32(off))
			}
			x.runes[i] = append(offs, int32(len(line)))
		}
	}
	if x.ascii[i] {
		return line[col:], true
	}
	offs := x.runes[i]
	if col >= len(offs) {
		return nil, false
	}
	return line[offs[col]:], true
}

// line returns line i without its newline; nil past the text.
func (x *lineIndex) line(i int) []byte {
	if i < 0 || i >= len(x.starts) {
		return nil
	}
	end := len(x.text)
	if i+1 < len(x.starts) {
		end = x.starts[i+1] - 1
	}
	return x.text[x.starts[i]:end]
}

// emptyAfter reports whether the key of e, at kp, has an empty value
// that an action writing nothing wrote on its line (begin to end): kyverno's
// `replicas: {{ template "kyverno.deployment.replicas" .Values.….replicas }}`
// with `replicas: ~`. Such a null has no text of its own to hold a position,
// yet that values key is what sets it.
func emptyAfter(e *entry, kp, begin, end pos) bool {
	v := e.value
	return v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "" &&
		begin == end && begin.line == kp.line && kp.less(begin)
}

// innermost returns the last-opened of calls, sorted by where they open,
// whose output holds position p (of several opened at one place, the
// first): the calls opened before p are searched from the last, and the
// first that holds p is it, so sibling includes cost one step, not one
// for every call of the document.
func innermost(calls []occurrence, p pos) (occurrence, bool) {
	n, _ := slices.BinarySearchFunc(calls, p, func(c occurrence, p pos) int { return (pos{c.bLine, c.bCol}).compare(p) })
	for k := n - 1; k >= 0; k-- {
		c := calls[k]
		if (pos{c.eLine, c.eCol}).less(p) {
			continue
		}
		for k > 0 && calls[k-1].bLine == c.bLine && calls[k-1].bCol == c.bCol && !(pos{calls[k-1].eLine, calls[k-1].eCol}).less(p) {
			k--
			c = calls[k]
		}
		return c, true
	}
	return occurrence{}, false
}

// bindingLoc is the template line of a binding's action.
func (b *helmDocs) bindingLoc(bind tmplmark.Binding) rendered.Location {
	file := ""
	if bind.File >= 0 && bind.File < len(b.idx.infos) {
		file = b.idx.infos[bind.File].file
	}
	return rendered.Location{File: file, Line: bind.Line, Column: b.idx.column(bind.File, bind.Line), Kind: Template}
}

// notYAMLAt returns the template line that wrote the line of a document's
// output that err, its parse's error (parseYAML's), names (the document's
// output starts at line from of its template's output, whose lines'
// templates firstTpl traces), where the author fixes the template, not its
// first line, and why the parser refused it.
func (b *helmDocs) notYAMLAt(err error, from int, firstTpl tplLines) (at rendered.Location, why string, ok bool) {
	if inner := errors.Unwrap(err); inner != nil {
		err = inner // the parser's own error, without parseYAML's prefix
	}
	n := manifest.YAMLErrorLine(err)
	if n < 1 {
		return rendered.Location{}, "", false
	}
	mk, found := firstTpl.at(from + n - 1)
	if !found {
		return rendered.Location{}, "", false
	}
	at = b.templateLoc(mk)
	return at, manifest.YAMLErrorReason(err), at.File != ""
}

func (b *helmDocs) templateLoc(mk tplMark) rendered.Location {
	file := ""
	if i := mk.template(); i >= 0 && i < len(b.idx.infos) {
		file = b.idx.infos[i].file
	}
	return rendered.Location{File: file, Line: int(mk.line), Column: b.idx.column(mk.template(), int(mk.line)), Kind: Template}
}

// maxGuard bounds the action a dormant template opens with that a render
// keeps (rendered.Skipped.Guard), which messages quote: a guard on two
// long values paths (kube-prometheus-stack's webhook budget, 162 bytes)
// fits.
const maxGuard = 256

// dormant is what a render says of template file, whose text is text,
// that renders nothing with its values: the kinds of object text writes on
// lines of their own (`kind: PodDisruptionBudget`), and the action it
// opens with when that is an if or a with (its first line that is not
// blank, a comment, a template comment, which may span lines, or a
// document separator), when it is at most maxGuard bytes.
func dormant(file string, text []byte) rendered.Skipped {
	s := rendered.Skipped{File: file, Reason: "template renders to nothing with these values"}
	first, comment := true, false
	for line := range bytes.Lines(text) {
		l := strings.TrimSpace(string(line))
		if first && (strings.HasPrefix(l, "{{/*") || strings.HasPrefix(l, "{{- /*")) {
			comment = true
		}
		if comment {
			comment = !strings.Contains(l, "*/")
		} else if first && l != "" && l != "---" && !strings.HasPrefix(l, "#") {
			first = false
			if a := strings.TrimLeft(strings.TrimPrefix(l, "{{"), "- "); strings.HasPrefix(l, "{{") && (strings.HasPrefix(a, "if ") || strings.HasPrefix(a, "with ")) {
				end := strings.Index(l, "}}")
				if end >= 0 && end+2 <= maxGuard {
					s.Guard = l[:end+2]
				}
			}
		}
		if k, ok := strings.CutPrefix(string(line), "kind:"); ok {
			k, _, _ = strings.Cut(k, " #")
			if k = strings.TrimSpace(k); k != "" && !strings.ContainsAny(k, "{} \t\"'") && !slices.Contains(s.Writes, k) {
				s.Writes = append(s.Writes, k)
			}
		}
	}
	return s
}
