package rendered

import "bytes"

// DocMap maps the key paths of one rendered document, formatted ("" is the
// document itself), to the places an author edits to change them, the one
// to edit first first.
type DocMap map[string][]Location

// Locate returns the place an author edits to change the key at path in
// document doc (an index into r.Documents). path is a dotted key path with
// [i] sequence indexes, e.g. spec.template.spec.containers[0].readinessProbe;
// keys holding dots are written ["helm.sh/hook"]. A path with no location of
// its own (a key emitted by toYaml, or a key that is absent and would be
// added) gets its nearest ancestor's, with Inherited set. ok is false when
// doc is out of range, the path does not parse, or nothing is known.
func (r *Render) Locate(doc int, path string) (loc Location, ok bool) {
	all := r.Origins(doc, path)
	if len(all) == 0 {
		return Location{}, false
	}
	return all[0], true
}

// Origins returns every known location for the key at path in document doc,
// the one to edit first: for a Helm key set from values, the values line and
// then the template line that emits it; for kustomize, the patch line and then
// the base line. Ancestor fallback works as in [Render.Locate].
func (r *Render) Origins(doc int, path string) []Location {
	if doc < 0 || doc >= len(r.Maps) {
		return nil
	}
	p, err := ParsePath(path)
	if err != nil {
		return nil
	}
	m := r.Map(doc)
	for n := len(p); n >= 0; n-- {
		locs := m[FormatPath(p[:n])]
		if len(locs) == 0 {
			continue
		}
		out := append([]Location(nil), locs...)
		if n < len(p) {
			for i := range out {
				out[i].Inherited = true
			}
		}
		return out
	}
	return nil
}

// Columns are the columns at which the lines of a text write first
// (WrittenColumn), line 1's first: what a file's findings are placed at,
// read once for all of them.
type Columns []int32

// NewColumns returns the Columns of text.
func NewColumns(text []byte) Columns {
	var cols Columns
	for l := range bytes.Lines(text) {
		cols = append(cols, int32(WrittenColumn(l)))
	}
	return cols
}

// At returns the column line (1-based) writes at, 0 past the text.
func (c Columns) At(line int) int {
	if line < 1 || line > len(c) {
		return 0
	}
	return int(c[line-1])
}

// WrittenColumn returns the 1-based column at which line, a line of YAML or
// of a template that writes YAML, writes its first key or value: past its
// indentation and the "- " of every sequence item it opens (where a plain
// manifest's finding on that key or item is placed). It is 1 for a line
// that writes nothing.
func WrittenColumn(line []byte) int {
	i := 0
	for {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i+1 < len(line) && line[i] == '-' && line[i+1] == ' ' {
			i += 2
			continue
		}
		break
	}
	if i >= len(line) || line[i] == '\n' || line[i] == '\r' {
		return 1
	}
	return i + 1
}
