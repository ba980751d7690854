// Package diff is the one diff model of reviews: a file's unified diff as
// the GitHub and GitLab APIs send it, parsed into hunks with both sides
// numbered, and the questions a review asks of it (is a line shown, added,
// can a comment on a range be anchored). It imports only the standard
// library, so its fuzz target instruments a few dozen packages, not bot's
// hundreds.
package diff

import (
	"fmt"
	"strconv"
	"strings"
)

// Diff is one file's unified diff, both sides numbered: which lines of the
// file at head a review comment may target, and where each stood at base.
// It follows reviewdog's diff package: a file's hunks, each hunk's lines,
// each line with its type and its old and new line numbers.
type Diff struct {
	// Hunks are in file order.
	Hunks []Hunk
}

// Hunk is one @@ block of a unified diff.
type Hunk struct {
	// OldStart and NewStart are the first lines of the header's old and
	// new ranges, as written ("@@ -0,0 +1,3 @@" has OldStart 0: the old
	// side is empty; "@@ -3,0 +4 @@" has OldStart 3: lines are inserted
	// after old line 3).
	OldStart, NewStart int
	// Start and End are the 1-based, inclusive lines of the file at head
	// that the hunk shows (added and context lines); End < Start for a hunk
	// that only removes lines.
	Start, End int
	// Lines are the hunk's lines in order ("\ No newline at end of file"
	// is not a line).
	Lines []Line
}

// LineType says on which side of a diff a line is.
type LineType int

// The types of a diff line.
const (
	// Context is an unchanged line: on both sides.
	Context LineType = iota
	// Added is a line only the file at head has.
	Added
	// Deleted is a line only the file at base has.
	Deleted
)

// Line is one line of a hunk.
type Line struct {
	Type LineType
	// Old and New are the line's 1-based numbers in the file at base and
	// at head; 0 on the side the line is not on (Old of an added line,
	// New of a deleted one).
	Old, New int
	// Content is the line without its "+", "-" or " " prefix.
	Content string
}

// ParsePatch reads a unified diff of one file (hunks only, as the GitHub
// and GitLab APIs send it; a "diff --git"/"---"/"+++" header is skipped).
// An empty patch has no hunks. A malformed hunk header is an error.
func ParsePatch(patch string) (*Diff, error) {
	d := &Diff{}
	var cur *Hunk
	oldNext, newNext := 0, 0 // next line numbers inside the current hunk
	lines := strings.Split(patch, "\n")
	for i, l := range lines {
		if l == "" && i == len(lines)-1 {
			break // trailing newline of the patch
		}
		if strings.HasPrefix(l, "@@") {
			oldStart, newStart, err := parseHunkHeader(l)
			if err != nil {
				return nil, fmt.Errorf("diff line %d: %w", i+1, err)
			}
			start := max(newStart, 1) // "+0,0": the new file is empty
			if cur != nil && start <= cur.End {
				// Hunks of a diff come in file order and never overlap:
				// one that does is not a diff the lines can be read from.
				return nil, fmt.Errorf("diff line %d: hunk at line %d overlaps the one before (to line %d)", i+1, start, cur.End)
			}
			d.Hunks = append(d.Hunks, Hunk{OldStart: oldStart, NewStart: newStart, Start: start, End: start - 1})
			cur = &d.Hunks[len(d.Hunks)-1]
			oldNext, newNext = max(oldStart, 1), start
			continue
		}
		if cur == nil {
			continue // file header before the first hunk
		}
		switch {
		case strings.HasPrefix(l, "+"):
			cur.Lines = append(cur.Lines, Line{Type: Added, New: newNext, Content: l[1:]})
			cur.End = newNext
			newNext++
		case strings.HasPrefix(l, "-"):
			cur.Lines = append(cur.Lines, Line{Type: Deleted, Old: oldNext, Content: l[1:]})
			oldNext++
		case strings.HasPrefix(l, "\\"):
			// "\ No newline at end of file": no line on either side
		default: // context line (" x", or "" for an empty context line)
			cur.Lines = append(cur.Lines, Line{Type: Context, Old: oldNext, New: newNext, Content: strings.TrimPrefix(l, " ")})
			cur.End = newNext
			oldNext++
			newNext++
		}
	}
	return d, nil
}

// MaxHunkStart bounds a hunk's first line (no file the bot reads has
// 2^31 lines).
const MaxHunkStart = 1<<31 - 1

// parseHunkHeader returns the old and new start lines of
// "@@ -a[,b] +c[,d] @@ …" (a and c).
func parseHunkHeader(h string) (oldStart, newStart int, err error) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, fmt.Errorf("bad hunk header %q", h)
	}
	num := func(s string) (int, bool) {
		s, _, _ = strings.Cut(s[1:], ",")
		n, err := strconv.Atoi(s)
		// A start beyond any real file's length would overflow the line
		// numbers that follow it: refuse it like any other bad header.
		return n, err == nil && n >= 0 && n <= MaxHunkStart
	}
	oldStart, ok1 := num(f[1])
	newStart, ok2 := num(f[2])
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("bad hunk header %q", h)
	}
	return oldStart, newStart, nil
}

// NewLine returns the line of the diff that is 1-based line n of the file
// at head, and the index of its hunk; ok is false when the diff does not
// show line n.
func (d *Diff) NewLine(n int) (l Line, hunk int, ok bool) {
	for i, h := range d.Hunks {
		if n < h.Start || n > h.End {
			continue
		}
		for _, l := range h.Lines {
			if l.New == n {
				return l, i, true
			}
		}
	}
	return Line{}, -1, false
}

// IsAdded reports whether 1-based line of the file at head is added by the diff.
func (d *Diff) IsAdded(line int) bool {
	l, _, ok := d.NewLine(line)
	return ok && l.Type == Added
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
	for _, h := range d.Hunks {
		if h.End < start || h.Start > end {
			continue
		}
		for _, l := range h.Lines {
			if l.Type == Added && l.New >= start && l.New <= end {
				return true
			}
		}
	}
	return false
}

// Commentable reports whether a comment on the 1-based inclusive range
// start..end of the file at head can be anchored on the diff: the range
// lies in one hunk and adds at least one of its lines.
func (d *Diff) Commentable(start, end int) bool {
	return d.InOneHunk(start, end) && d.AddedIn(start, end)
}

// AddedFilePatch is the diff of a new file whose content is data: every
// line added, as the hosts show it. Empty data has an empty diff.
func AddedFilePatch(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// SplitFiles splits a git diff of many files ("diff --git a/x b/x",
// "---"/"+++" headers, hunks) into each file's hunks, keyed by its new path
// (the old one for a deleted file): one patch per file, as ParsePatch reads
// it.
func SplitFiles(raw string) map[string]string {
	out := map[string]string{}
	var path string
	var hunks strings.Builder
	inHunks := false
	flush := func() {
		if path != "" && hunks.Len() > 0 {
			out[path] = hunks.String()
		}
		path, inHunks = "", false
		hunks.Reset()
	}
	for _, l := range strings.SplitAfter(raw, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			flush()
		case !inHunks && strings.HasPrefix(l, "--- "):
			if p := headerPath(l[4:], "a/"); p != "" && path == "" {
				path = p
			}
		case !inHunks && strings.HasPrefix(l, "+++ "):
			if p := headerPath(l[4:], "b/"); p != "" {
				path = p
			}
		case strings.HasPrefix(l, "@@"):
			inHunks = true
			hunks.WriteString(l)
		case inHunks:
			hunks.WriteString(l)
		}
	}
	flush()
	return out
}

// headerPath reads the path of a ---/+++ line: "" for /dev/null; git's
// quoting of unusual names is undone for the quotes only.
func headerPath(s, prefix string) string {
	s = strings.TrimRight(s, "\r\n")
	s, _, _ = strings.Cut(s, "\t")
	s = strings.Trim(s, `"`)
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, prefix)
}
