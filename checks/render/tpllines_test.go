package render

import (
	"math"
	"testing"

	"github.com/prodready/prodready/checks/render/internal/tmplmark"
)

// TestTplLinesKeepEachLinesFirstTemplateMark holds the compact table the
// maps made on use read to each line's first template mark, as the
// pointers into each line's marks it replaced gave: binding marks are
// passed over, a line without a template mark has none, and a line past
// the output has none. A mark of line 0 is still a mark, and a template
// index too large for the table's int32 is kept past every template.
func TestTplLinesKeepEachLinesFirstTemplateMark(t *testing.T) {
	marks := [][]tmplmark.Mark{
		{{File: 0, Line: 3, Binding: -1}, {File: 1, Line: 9, Binding: -1}},
		nil,
		{{Binding: 2, Begin: true}, {File: 2, Line: 7, Binding: -1}},
		{{Binding: 2}},
		{{File: 4, Line: 0, Binding: -1}},
		{{File: math.MaxInt32 + 5, Line: 2, Binding: -1}},
	}
	got := newTplLines(marks)
	want := []struct {
		mk tplMark
		ok bool
	}{
		{tplMark{file1: 1, line: 3}, true},
		{},
		{tplMark{file1: 3, line: 7}, true},
		{},
		{tplMark{file1: 5, line: 0}, true},
		{tplMark{file1: math.MaxInt32, line: 2}, true},
	}
	for l, w := range want {
		if mk, ok := got.at(l); mk != w.mk || ok != w.ok {
			t.Errorf("line %d: at = %+v, %v; want %+v, %v", l, mk, ok, w.mk, w.ok)
		}
	}
	if got, want := got[5].template(), math.MaxInt32-1; got != want {
		t.Errorf("a template index past int32 is read as %d, want %d (past every template)", got, want)
	}
	for _, l := range []int{-1, len(marks)} {
		if _, ok := got.at(l); ok {
			t.Errorf("line %d, outside the output: at says it has a template mark", l)
		}
	}
}
