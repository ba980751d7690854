package rendered_test

import (
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// TestWrittenColumn: a line's column is where a plain manifest's finding
// on the key or item it writes is placed: past the indentation and every
// "- " that opens an item; what is not a key (a template action, a
// document separator, a blank line) is placed where it starts, or at 1.
func TestWrittenColumn(t *testing.T) {
	for _, c := range []struct {
		line string
		want int
	}{
		{"kind: Deployment\n", 1},
		{"  replicas: 1\n", 3},
		{"        - name: web\n", 11},
		{"  - - a\n", 7},
		{"      - |\n", 9},
		{"          {{- toYaml .Values.resources | nindent 12 }}\n", 11},
		{"  -\n", 3},
		{"---\n", 1},
		{"-x: 1\n", 1},
		{"    \n", 1},
		{"", 1},
		{"  value: x\r\n", 3},
	} {
		if got := rendered.WrittenColumn([]byte(c.line)); got != c.want {
			t.Errorf("WrittenColumn(%q) = %d, want %d", c.line, got, c.want)
		}
	}
}
