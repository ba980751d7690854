package fix

import (
	"bytes"
	"path"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
)

// origins maps each line of a text, by index (line 1 at 0), to the line of
// the input as given that it comes from: one map for each input a round
// changed, made again each round (see lineOrigins).
type origins map[string][]int32

// lineOrigins maps each line of next, by index, to the line of old it
// comes from: a line kept is the same line, moved by what was added or
// removed above it; a line a change wrote is the old line at the same
// place in the change, past the change's old lines its last one (a line
// inserted after line N comes from line N).
func lineOrigins(old, next []byte) []int32 {
	return originsOf(edit.Changes(old, next), next)
}

// originsOf is lineOrigins of next, made by changes cs (edit.Changes).
func originsOf(cs []edit.Change, next []byte) []int32 {
	n := countLines(next)
	out := make([]int32, 0, n)
	at := 1 // the next old line not yet mapped
	for _, c := range cs {
		for ; at < c.StartLine; at++ {
			out = append(out, int32(at))
		}
		last := max(c.EndLine, c.StartLine)
		for j := range countLines([]byte(c.Text)) {
			if len(out) < n {
				out = append(out, int32(min(c.StartLine+j, last)))
			}
		}
		at = c.EndLine + 1
	}
	for len(out) < n {
		out = append(out, int32(at))
		at++
	}
	return out
}

// countLines counts the lines of b as edit.Changes does: a last line
// without a line ending is one.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// moved records that file became next from old in a round: the lines of
// next are mapped, through old's, to the input's.
func (o origins) moved(file string, old, next []byte) {
	o.follow(file, lineOrigins(old, next))
}

// follow records that file changed in a round, m mapping its new lines to
// those it had (lineOrigins): they are mapped on to the input's.
func (o origins) follow(file string, m []int32) {
	file = path.Clean(file)
	prev := o[file]
	if prev != nil {
		for i, l := range m {
			if int(l) <= len(prev) {
				m[i] = prev[l-1]
			}
		}
	}
	o[file] = m
}

// line returns the line of file's input that line (of the text the
// rounds so far left) comes from; line itself when no round changed file
// or it lies past the text.
func (o origins) line(file string, line int) int {
	m := o[path.Clean(file)]
	if line < 1 || line > len(m) {
		return line
	}
	return int(m[line-1])
}

// onInput returns f with its lines those of its file's input, f's lines
// being those of the text the rounds so far left.
func (o origins) onInput(f checks.Finding) checks.Finding {
	if o[path.Clean(f.File)] == nil {
		return f
	}
	f.Line, f.EndLine = o.line(f.File, f.Line), o.line(f.File, f.EndLine)
	return f
}
