package gitlab

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// diffLine is one line of the new side of a diff, numbered the way GitLab's
// diff parser numbers it (Gitlab::Diff::Parser): NewLine is the 1-based line
// of the file at head; OldPos is the old-side counter at that line (the old
// line for a context line, the next old line for an added one).
type diffLine struct {
	NewLine, OldPos int
	Added           bool
}

// fileDiff maps the new-side lines of one file's diff, the only lines a
// discussion can be anchored to.
type fileDiff struct {
	OldPath, NewPath string
	lines            map[int]diffLine
	// hunkOf numbers the hunk each new-side line belongs to.
	hunkOf map[int]int
}

// parseDiff reads the hunks of a GitLab diff (the "diff" field of the
// merge request diffs API: hunks only, no file headers).
func parseDiff(oldPath, newPath, patch string) (*fileDiff, error) {
	d := &fileDiff{OldPath: oldPath, NewPath: newPath, lines: map[int]diffLine{}, hunkOf: map[int]int{}}
	oldPos, newPos, hunk := 0, 0, 0
	inHunk := false
	for _, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "@@") {
			o, n, err := parseHunkHeader(l)
			if err != nil {
				return nil, err
			}
			oldPos, newPos, inHunk = o, n, true
			hunk++
			continue
		}
		if !inHunk || l == "" {
			continue
		}
		switch l[0] {
		case '+':
			d.lines[newPos] = diffLine{NewLine: newPos, OldPos: oldPos, Added: true}
			d.hunkOf[newPos] = hunk
			newPos++
		case '-':
			oldPos++
		case '\\': // "\ No newline at end of file"
		default:
			d.lines[newPos] = diffLine{NewLine: newPos, OldPos: oldPos}
			d.hunkOf[newPos] = hunk
			newPos++
			oldPos++
		}
	}
	return d, nil
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@ …" and returns a and c, the
// first old and new lines (0 for an empty side, as in "@@ -0,0 +1,3 @@").
func parseHunkHeader(h string) (oldStart, newStart int, err error) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, fmt.Errorf("malformed hunk header %q", h)
	}
	num := func(s string) (int, error) {
		s, _, _ = strings.Cut(s[1:], ",")
		return strconv.Atoi(s)
	}
	if oldStart, err = num(f[1]); err != nil {
		return 0, 0, fmt.Errorf("malformed hunk header %q: %w", h, err)
	}
	if newStart, err = num(f[2]); err != nil {
		return 0, 0, fmt.Errorf("malformed hunk header %q: %w", h, err)
	}
	return oldStart, newStart, nil
}

// commentable reports whether a comment on start..end (1-based,
// inclusive) can be posted: every line is a line of the same hunk (added or
// context) and at least one of them is added.
func (d *fileDiff) commentable(start, end int) bool {
	if end < start {
		return false
	}
	added := false
	for l := start; l <= end; l++ {
		dl, ok := d.lines[l]
		if !ok || d.hunkOf[l] != d.hunkOf[start] {
			return false
		}
		added = added || dl.Added
	}
	return added
}

// lineCode is GitLab's line code for a line of a diff:
// sha1(path)_oldpos_newpos, path being the file's new path.
func lineCode(path string, l diffLine) string {
	sum := sha1.Sum([]byte(path))
	return hex.EncodeToString(sum[:]) + "_" + strconv.Itoa(l.OldPos) + "_" + strconv.Itoa(l.NewLine)
}

// addedFilePatch is the diff of a new file whose content is data: every
// line added, as GitLab shows it.
func addedFilePatch(data []byte) string {
	s := strings.TrimSuffix(string(data), "\n")
	if len(data) == 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// splitRawDiff splits a git diff of many files ("diff --git a/x b/x",
// headers, hunks) into each file's hunks, keyed by its new path (the old
// one for a deleted file).
func splitRawDiff(raw string) map[string]string {
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
			if p := diffPath(l[4:], "a/"); p != "" && path == "" {
				path = p
			}
		case !inHunks && strings.HasPrefix(l, "+++ "):
			if p := diffPath(l[4:], "b/"); p != "" {
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

// diffPath reads the path of a ---/+++ line: "" for /dev/null; git's
// quoting of unusual names is undone for the quotes only.
func diffPath(s, prefix string) string {
	s = strings.TrimRight(s, "\r\n")
	s, _, _ = strings.Cut(s, "\t")
	s = strings.Trim(s, `"`)
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, prefix)
}
