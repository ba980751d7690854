package scan

import (
	"slices"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
)

// byFile hands a streamed scan's findings on so that each file's come
// together, in line order. A file no render touches (rendered.Prepared.Touched)
// has findings from its own check alone, which the run hands over a file
// at a time in path order: they pass as they come. A file a render touches
// (a chart's template or values file, an overlay's base or patch) may also
// have findings from a render problem, from a render's objects mapped back
// to it and from the merges at the end of the run: those are held, and
// handed over at the end, sorted by file and line. So a report names each
// file once (the text format's heading), and only findings on the files of
// charts and overlays, which their renders bound, are ever held.
type byFile struct {
	prep *rendered.Prepared
	emit func([]checks.Finding)
	held []checks.Finding
}

// add passes on the findings of fs on files no render touches, and holds
// the others; fromRender says that all of fs come from a render's objects.
func (b *byFile) add(fs []checks.Finding, fromRender bool) {
	if fromRender {
		b.held = append(b.held, fs...)
		return
	}
	first := slices.IndexFunc(fs, func(f checks.Finding) bool { return b.prep.Touched(f.File) })
	if first < 0 {
		b.emit(fs)
		return
	}
	pass := slices.Clone(fs[:first])
	for _, f := range fs[first:] {
		if b.prep.Touched(f.File) {
			b.held = append(b.held, f)
		} else {
			pass = append(pass, f)
		}
	}
	b.emit(pass)
}

// hold holds fs until close.
func (b *byFile) hold(fs []checks.Finding) { b.held = append(b.held, fs...) }

// close hands over what was held, sorted by file and line (a stable sort:
// the findings of one line keep the order they came in).
func (b *byFile) close() {
	checks.SortFindings(b.held)
	b.emit(b.held)
	b.held = nil
}
