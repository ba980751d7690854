package gitlab

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/prodready/prodready/bot"
)

// fileDiff is one changed file's diff (bot's model) with the paths GitLab
// positions name.
type fileDiff struct {
	OldPath, NewPath string
	*bot.Diff
}

// anchor is one line of a diff as a GitLab position names it: NewLine is
// the 1-based line of the file at head; OldPos is Gitlab::Diff::Parser's
// old-side counter at that line (the old line for a context line, the next
// old line for an added one).
type anchor struct {
	NewLine, OldPos int
	Added           bool
}

// anchorAt returns the anchor of 1-based line n of the file at head; ok is
// false when the diff does not show it.
func (d *fileDiff) anchorAt(n int) (anchor, bool) {
	l, hunk, ok := d.NewLine(n)
	if !ok {
		return anchor{}, false
	}
	if l.Type != bot.Added {
		return anchor{NewLine: n, OldPos: l.Old}, true
	}
	h := d.Hunks[hunk]
	pos := h.OldStart // no old line before it in the hunk
	for _, p := range h.Lines {
		if p.New == n && p.Type == bot.Added {
			break
		}
		if p.Old != 0 {
			pos = p.Old + 1
		}
	}
	return anchor{NewLine: n, OldPos: pos, Added: true}, true
}

// lineCode is GitLab's line code for a line of a diff:
// sha1(path)_oldpos_newpos, path being the file's new path.
func lineCode(path string, a anchor) string {
	sum := sha1.Sum([]byte(path))
	return hex.EncodeToString(sum[:]) + "_" + strconv.Itoa(a.OldPos) + "_" + strconv.Itoa(a.NewLine)
}

// position anchors a discussion at start (a line of the diff: new_line,
// plus old_line for an unchanged line, as GitLab requires) with a
// line_range start..end when it spans several lines. refs are the merge
// request's diff_refs; start..end must be Commentable.
func position(refs gl.MergeRequestDiffRefs, fd *fileDiff, start, end int) *gl.PositionOptions {
	first, _ := fd.anchorAt(start)
	p := &gl.PositionOptions{
		PositionType: gl.Ptr("text"),
		BaseSHA:      gl.Ptr(refs.BaseSha),
		StartSHA:     gl.Ptr(refs.StartSha),
		HeadSHA:      gl.Ptr(refs.HeadSha),
		OldPath:      gl.Ptr(fd.OldPath),
		NewPath:      gl.Ptr(fd.NewPath),
		NewLine:      gl.Ptr(int64(start)),
	}
	if !first.Added {
		p.OldLine = gl.Ptr(int64(first.OldPos))
	}
	if end > start {
		last, _ := fd.anchorAt(end)
		p.LineRange = &gl.LineRangeOptions{Start: linePosition(fd, first), End: linePosition(fd, last)}
	}
	return p
}

func linePosition(fd *fileDiff, a anchor) *gl.LinePositionOptions {
	lp := &gl.LinePositionOptions{LineCode: gl.Ptr(lineCode(fd.NewPath, a)), NewLine: gl.Ptr(int64(a.NewLine))}
	if a.Added {
		lp.Type = gl.Ptr("new")
	} else {
		lp.OldLine = gl.Ptr(int64(a.OldPos))
	}
	return lp
}
