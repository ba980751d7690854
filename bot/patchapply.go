package bot

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/prodready/prodready/bot/diff"
)

// ApplyPatch applies a unified diff of one file (hunks only, as the hosts
// send them; a file header is skipped) to the file's old content and
// returns its new content. With reverse, it applies the diff backwards: to
// the new content, returning the old. Every context and removed line must
// match; "\ No newline at end of file" is honoured on either side. An
// error means the patch does not apply (truncated, or of other contents).
func ApplyPatch(src []byte, patch string, reverse bool) ([]byte, error) {
	lines := splitKeep(src)
	var out bytes.Buffer
	next := 0 // index in lines of the next line not yet copied
	inHunk := false
	last := byte(0) // the previous hunk line's side: ' ', '+' or '-'
	pl := strings.Split(patch, "\n")
	if n := len(pl); n > 0 && pl[n-1] == "" {
		pl = pl[:n-1]
	}
	for i, l := range pl {
		if strings.HasPrefix(l, "@@") {
			from, count, err := hunkFrom(l, reverse)
			if err != nil {
				return nil, fmt.Errorf("patch line %d: %w", i+1, err)
			}
			upTo := from - 1 // the hunk's first line
			if count == 0 {
				upTo = from // lines are inserted after line from
			}
			if upTo < next || upTo > len(lines) {
				return nil, fmt.Errorf("patch line %d: hunk at line %d outside the file (%d lines, %d copied)", i+1, from, len(lines), next)
			}
			for ; next < upTo; next++ {
				out.WriteString(lines[next])
			}
			inHunk, last = true, 0
			continue
		}
		if !inHunk {
			continue
		}
		if l == "" {
			l = " " // an empty context line some producers write bare
		}
		kind, text := l[0], l[1:]
		if reverse {
			switch kind {
			case '+':
				kind = '-'
			case '-':
				kind = '+'
			}
		}
		switch kind {
		case ' ', '-':
			if next >= len(lines) || strings.TrimSuffix(lines[next], "\n") != text {
				return nil, fmt.Errorf("patch line %d: does not match line %d", i+1, next+1)
			}
			if kind == ' ' {
				out.WriteString(lines[next])
			}
			next++
		case '+':
			out.WriteString(text + "\n")
		case '\\':
			// The line before has no newline at the end of its side(s);
			// a context or removed line copied from src has none already.
			if last == '+' {
				out.Truncate(out.Len() - 1)
			}
		default:
			return nil, fmt.Errorf("patch line %d: not a diff line", i+1)
		}
		if kind != '\\' {
			last = kind
		}
	}
	for ; next < len(lines); next++ {
		out.WriteString(lines[next])
	}
	return out.Bytes(), nil
}

// splitKeep splits data into lines that keep their "\n" (the last one may
// have none).
func splitKeep(data []byte) []string {
	parts := strings.SplitAfter(string(data), "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// hunkFrom is the start and count of a hunk header's source side: the old
// range "-a,b", or the new range "+c,d" when reverse.
func hunkFrom(h string, reverse bool) (start, count int, err error) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, fmt.Errorf("bad hunk header %q", h)
	}
	r := f[1][1:]
	if reverse {
		r = f[2][1:]
	}
	a, b, ok := strings.Cut(r, ",")
	count = 1
	if ok {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, fmt.Errorf("bad hunk header %q", h)
		}
	}
	if start, err = strconv.Atoi(a); err != nil || start < 0 || start > diff.MaxHunkStart {
		return 0, 0, fmt.Errorf("bad hunk header %q", h)
	}
	if start == 0 && count != 0 {
		return 0, 0, errors.New("hunk starts at line 0 but has lines")
	}
	return start, count, nil
}

// GitBlobSHA is git's object id of a blob with content data (SHA-1): the
// SHA the hosts' trees name a file's content by.
func GitBlobSHA(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
