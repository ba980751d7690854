package edit

import (
	"strings"
	"testing"
)

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		doc  int
		ops  []Op
		want string // the error text starts with this
	}{
		{"doc out of range", "a: 1\n---\nb: 2\n", 2, []Op{set("a", "1")}, "edit: document 2 out of range: the file has 2"},
		{"negative doc", "a: 1\n", -1, []Op{set("a", "1")}, "edit: document -1 out of range"},
		{"unparsable document", "a: [1\n", 0, []Op{set("a", "1")}, "edit: set a: parsing the document"},
		{"alias on the path", "base: &b\n  x: 1\nuse: *b\n", 0, []Op{set("use.x", "2")}, "edit: set use.x: alias on the path"},
		{"set through a missing sequence index", "l:\n- a\n", 0, []Op{set("l.3.name", "x")}, "edit: set l.3.name: index 3 out of range"},
		{"set creating a sequence index", "a: {}\n", 0, []Op{set("a.list.0", "x")}, `edit: set a.list.0: path goes through a missing sequence index "0"`},
		{"not an index", "l:\n- a\n", 0, []Op{set("l.x", "1")}, `edit: set l.x: "x" is not a sequence index`},
		{"through a scalar", "a: text\n", 0, []Op{set("a.b", "1")}, `edit: set a.b: "b" is inside a scalar`},
		{"append to a mapping", "a:\n  b: 1\n", 0, []Op{appendOp("a", "1")}, "edit: append a: not a sequence"},
		{"empty path", "a: 1\n", 0, []Op{set("", "1")}, "edit: set : empty path"},
		{"unknown action", "a: 1\n", 0, []Op{{Action: "move", Path: []string{"a"}}}, `edit: move a: unknown action "move"`},
		{"empty value", "a: 1\n", 0, []Op{set("a", " ")}, "edit: set a: empty value"},
		{"bad value", "a: 1\n", 0, []Op{set("a", "[x")}, "edit: set a: parsing the value"},
		{"two values", "a: 1\n", 0, []Op{set("a", "x\n---\ny")}, "edit: set a: parsing the value"},
		{"lone CR", "a: 1\rb: 2\n", 0, []Op{set("a", "2")}, "edit: set a: the document has a line break"},
		{"second op fails", "a: 1\n", 0, []Op{set("a", "2"), set("a.b", "1")}, `edit: set a.b: "b" is inside a scalar`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply([]byte(tt.src), tt.doc, tt.ops)
			if err == nil {
				t.Fatalf("no error; got %q", got)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %q, want it to start with %q", err, tt.want)
			}
		})
	}
}

// TestApplyNoOps checks that Apply without ops, or with ops that change no
// data, returns the input unchanged, even for odd files.
func TestApplyNoOps(t *testing.T) {
	for _, src := range []string{"a: 1", "a: 1\r\n", "---\na: 1\n...\n", "# only\n---\n"} {
		got, err := Apply([]byte(src), 0, nil)
		if err != nil || string(got) != src {
			t.Errorf("Apply(%q, no ops) = %q, %v", src, got, err)
		}
		got, err = Apply([]byte(src), 0, []Op{del("zz")})
		if err != nil || string(got) != src {
			t.Errorf("Apply(%q, delete missing) = %q, %v", src, got, err)
		}
	}
}
