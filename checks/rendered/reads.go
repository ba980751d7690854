package rendered

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// readsWritten says why f's fix, placed in a chart, would name what other
// values leave out: a path its fix reads (Fix.Reads, the port a probe
// names) that a template writes inside a block (if, with, range) that
// does not hold the line the chart writes the fixed object's part on
// (`- name:` of the container). The fix is written whenever that line
// is, the read part only when the block's condition holds: with other
// values the probe would name a port the container no longer has. ""
// when each read is written whenever that line is, or when the render
// does not say where one of them is written.
func (pl *placed) readsWritten(files fileSet, f checks.Finding) string {
	if f.Fix == nil || len(f.Fix.Reads) == 0 {
		return ""
	}
	doc, root := pl.findingDoc(f)
	if root == nil {
		return ""
	}
	p, err := ParsePath(f.Path)
	if err != nil {
		return ""
	}
	own, ok := pl.templateLineOf(doc, p)
	if !ok {
		return ""
	}
	for _, read := range f.Fix.Reads {
		segs, _ := yamlpath.Walk(root, read)
		at, ok := pl.templateLineOf(doc, segs)
		if !ok {
			continue
		}
		name := FormatPath(segs)
		if at.file != own.file {
			return fmt.Sprintf("its edit names %s, which %s writes, while %s writes the fixed part: whether other values write both is not known", name, at.file, own.file)
		}
		tmpl := bytes.SplitAfter(contents(files, at.file), []byte("\n"))
		outer, inner := blockStack(tmpl, own.line, false), blockStack(tmpl, at.line, false)
		if len(inner) > len(outer) || !slices.Equal(inner, outer[:len(inner)]) {
			block := inner[len(inner)-1]
			for i := range min(len(inner), len(outer)) {
				if inner[i] != outer[i] {
					block = inner[i]
					break
				}
			}
			return fmt.Sprintf("its edit names %s, which the template writes (line %d) only inside the block at line %d, outside which it writes the fixed part (line %d): with other values the fix would name what is not there", name, at.line, block, own.line)
		}
	}
	return ""
}

// templateLineOf returns the template line that writes the key at path
// segs of document doc, or its nearest ancestor's that has one.
func (pl *placed) templateLineOf(doc int, segs []Segment) (templateLine, bool) {
	m := pl.render.Map(doc)
	for n := len(segs); n >= 0; n-- {
		for _, loc := range m[FormatPath(segs[:n])] {
			if loc.Kind == Template && loc.Line > 0 {
				return templateLine{loc.File, loc.Line}, true
			}
		}
	}
	return templateLine{}, false
}
