package edit

import (
	"fmt"
	"slices"
)

// ApplyAllChanges is ApplyChanges for a fix, which must apply whole or not
// at all: it returns an error, and changes nothing, when a change overlaps
// another or does not lie within src's lines. It is how a fix is applied to
// a file that is not YAML the engine reads (a Helm template).
func ApplyAllChanges(src []byte, cs []Change) ([]byte, error) {
	n := len(splitKeep(src))
	sorted := slices.Clone(cs)
	slices.SortFunc(sorted, func(a, b Change) int { return a.StartLine - b.StartLine })
	next := 1 // the first line no change has taken yet
	for _, c := range sorted {
		switch {
		case c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > n:
			return nil, fmt.Errorf("lines %d-%d are not lines of the file (%d lines)", c.StartLine, c.EndLine, n)
		case c.StartLine < next:
			return nil, fmt.Errorf("lines %d-%d overlap another change", c.StartLine, c.EndLine)
		}
		next = c.EndLine + 1
	}
	return ApplyChanges(src, sorted), nil
}
