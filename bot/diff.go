package bot

import (
	"fmt"
	"strconv"
	"strings"
)

// Diff is the new side of one file's unified diff: which lines of the file
// at head a review comment may target.
type Diff struct {
	// Hunks are in file order.
	Hunks []Hunk
}

// Hunk is one @@ block of a unified diff, on the new side.
type Hunk struct {
	// Start and End are the 1-based, inclusive lines of the file at head
	// that the hunk shows (added and context lines); End < Start for a hunk
	// that only removes lines.
	Start, End int
	// Added holds the 1-based lines of the file at head the hunk adds.
	Added map[int]bool
}

// ParsePatch reads a unified diff of one file (hunks only, as the GitHub
// and GitLab APIs send it; a "diff --git"/"---"/"+++" header is skipped).
// An empty patch has no hunks. A malformed hunk header is an error.
func ParsePatch(patch string) (*Diff, error) {
	d := &Diff{}
	var cur *Hunk
	next := 0 // next new-side line number inside the current hunk
	lines := strings.Split(patch, "\n")
	for i, l := range lines {
		if l == "" && i == len(lines)-1 {
			break // trailing newline of the patch
		}
		if strings.HasPrefix(l, "@@") {
			start, err := parseHunkHeader(l)
			if err != nil {
				return nil, fmt.Errorf("diff line %d: %w", i+1, err)
			}
			d.Hunks = append(d.Hunks, Hunk{Start: start, End: start - 1, Added: map[int]bool{}})
			cur = &d.Hunks[len(d.Hunks)-1]
			next = start
			continue
		}
		if cur == nil {
			continue // file header before the first hunk
		}
		switch {
		case strings.HasPrefix(l, "+"):
			cur.Added[next] = true
			cur.End = next
			next++
		case strings.HasPrefix(l, "-"), strings.HasPrefix(l, "\\"):
			// removed line or "\ No newline at end of file": no new-side line
		default: // context line (" x", or "" for an empty context line)
			cur.End = next
			next++
		}
	}
	return d, nil
}

// maxHunkStart bounds a hunk's first line (no file the bot reads has
// 2^31 lines).
const maxHunkStart = 1<<31 - 1

// parseHunkHeader returns the new-side start line of "@@ -a,b +c,d @@ …".
func parseHunkHeader(h string) (int, error) {
	fields := strings.Fields(h)
	for _, f := range fields[1:] {
		if !strings.HasPrefix(f, "+") {
			continue
		}
		f = strings.TrimPrefix(f, "+")
		if i := strings.IndexByte(f, ','); i >= 0 {
			f = f[:i]
		}
		n, err := strconv.Atoi(f)
		// A start beyond any real file's length would overflow the line
		// numbers that follow it: refuse it like any other bad header.
		if err != nil || n < 0 || n > maxHunkStart {
			return 0, fmt.Errorf("bad hunk header %q", h)
		}
		if n == 0 { // "+0,0": the new file is empty
			n = 1
		}
		return n, nil
	}
	return 0, fmt.Errorf("bad hunk header %q", h)
}

// IsAdded reports whether 1-based line of the file at head is added by the diff.
func (d *Diff) IsAdded(line int) bool {
	for _, h := range d.Hunks {
		if h.Added[line] {
			return true
		}
	}
	return false
}

// InOneHunk reports whether the 1-based inclusive range start..end of the
// file at head lies within the added and context lines of a single hunk:
// the condition for a multi-line review comment.
func (d *Diff) InOneHunk(start, end int) bool {
	if start > end {
		return false
	}
	for _, h := range d.Hunks {
		if start >= h.Start && end <= h.End {
			return true
		}
	}
	return false
}

// AddedIn reports whether any line of the 1-based inclusive range start..end
// is added by the diff.
func (d *Diff) AddedIn(start, end int) bool {
	for l := start; l <= end; l++ {
		if d.IsAdded(l) {
			return true
		}
	}
	return false
}
