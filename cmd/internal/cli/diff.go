package cli

import (
	"io"

	"github.com/prodready/prodready/internal/udiff"
)

// writeDiff prints a unified diff of before and after (udiff.Write): the
// bot's patches for pull requests it cannot commit to are written the same
// way.
func writeDiff(w io.Writer, path string, before, after []byte) {
	udiff.Write(w, path, before, after)
}
