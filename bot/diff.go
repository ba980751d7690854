package bot

import (
	"strings"

	"github.com/prodready/prodready/bot/diff"
)

// The diff model is package diff's (small, so that it is fuzzed with few
// imports); bot's names for it stay, for the reviewers and the hosts.
type (
	// Diff is one file's unified diff, both sides numbered (diff.Diff).
	Diff = diff.Diff
	// Hunk is one @@ block of a unified diff (diff.Hunk).
	Hunk = diff.Hunk
	// LineType says on which side of a diff a line is (diff.LineType).
	LineType = diff.LineType
	// Line is one line of a hunk (diff.Line).
	Line = diff.Line
)

// The types of a diff line.
const (
	// Context is an unchanged line: on both sides.
	Context = diff.Context
	// Added is a line only the file at head has.
	Added = diff.Added
	// Deleted is a line only the file at base has.
	Deleted = diff.Deleted
)

// ParsePatch reads a unified diff of one file (diff.ParsePatch).
func ParsePatch(patch string) (*Diff, error) { return diff.ParsePatch(patch) }

// AddedFilePatch is the diff of a new file whose content is data, every
// line added (diff.AddedFilePatch).
func AddedFilePatch(data []byte) string { return diff.AddedFilePatch(data) }

// SplitFiles splits a git diff of many files into each file's hunks, keyed
// by its path (diff.SplitFiles).
func SplitFiles(raw string) map[string]string { return diff.SplitFiles(raw) }

// nearRemoval returns the line of the file at head, shown in the diff,
// just above lines the diff removes inside the block that line opens (the
// lines after it indented deeper, as YAML nests): where a comment about
// something the block no longer has goes. 0 when the diff removes nothing
// there.
func nearRemoval(d *Diff, src []byte, line int) int {
	lines := strings.Split(string(src), "\n")
	if line < 1 || line > len(lines) {
		return 0
	}
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	opener := indent(lines[line-1]) // a sequence item's keys sit past its dash
	end := line
	for n := line + 1; n <= len(lines); n++ {
		l := lines[n-1]
		if strings.TrimSpace(l) == "" {
			continue
		}
		if indent(l) <= opener {
			break
		}
		end = n
	}
	for _, h := range d.Hunks {
		for i, l := range h.Lines {
			if l.Type != Deleted || i == 0 || h.Lines[i-1].Type == Deleted {
				continue
			}
			if at := h.Lines[i-1].New; at >= line && at <= end {
				return at
			}
		}
	}
	return 0
}
