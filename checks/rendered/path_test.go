package rendered

import (
	"slices"
	"testing"
)

// TestJoinPathAsFormatPath checks that a path built one segment at a time
// (keyLines) is the path FormatPath writes for the whole, and that
// ParsePath reads it back: plain keys, indexes, keys that must be quoted,
// an empty key, and each of them first.
func TestJoinPathAsFormatPath(t *testing.T) {
	segs := []Segment{
		{Key: "spec", Index: -1},
		{Index: 0},
		{Key: "helm.sh/hook", Index: -1},
		{Key: "", Index: -1},
		{Key: `a"b`, Index: -1},
		{Key: "x[1]", Index: -1},
		{Index: 12},
		{Key: "image", Index: -1},
	}
	for first := range segs {
		p := append(slices.Clone(segs[first:]), segs[:first]...)
		joined := ""
		for _, s := range p {
			joined = joinPath(joined, s)
		}
		if want := FormatPath(p); joined != want {
			t.Errorf("joined %q, FormatPath %q", joined, want)
		}
		back, err := ParsePath(joined)
		if err != nil || !slices.Equal(back, p) {
			t.Errorf("ParsePath(%q) = %v, %v; want %v", joined, back, err, p)
		}
	}
}
