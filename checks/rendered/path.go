package rendered

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks/rendered/internal/yamlpath"
)

// Segment is one step of a key path: a mapping key (Index < 0), or a
// sequence index when Key is "" and Index >= 0.
type Segment = yamlpath.Segment

// FormatPath writes a path the way [Render.Locate] takes it:
// spec.template.spec.containers[0].image; keys holding ".", "[", "]" or a
// quote are written as ["helm.sh/hook"].
func FormatPath(p []Segment) string {
	var b strings.Builder
	for _, s := range p {
		writeSegment(&b, s)
	}
	return b.String()
}

// joinPath is FormatPath of a path that parent formats, with s after it.
func joinPath(parent string, s Segment) string {
	var b strings.Builder
	b.Grow(len(parent) + len(s.Key) + 1)
	b.WriteString(parent)
	writeSegment(&b, s)
	return b.String()
}

// writeSegment writes s after the path b holds, as FormatPath writes it.
func writeSegment(b *strings.Builder, s Segment) {
	switch {
	case s.Index >= 0 && s.Key == "":
		fmt.Fprintf(b, "[%d]", s.Index)
	case s.Key == "" || strings.ContainsAny(s.Key, `.[]"`):
		fmt.Fprintf(b, "[%s]", strconv.Quote(s.Key))
	default:
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
}

// ParsePath reads the syntax FormatPath writes.
func ParsePath(s string) ([]Segment, error) {
	var p []Segment
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			i++
		case '[':
			j := i + 1
			if j < len(s) && s[j] == '"' {
				k := j + 1
				for k < len(s) && s[k] != '"' {
					if s[k] == '\\' {
						k++
					}
					k++
				}
				if k+1 >= len(s) || s[k+1] != ']' {
					return nil, fmt.Errorf("path %q: unterminated quoted key", s)
				}
				key, err := strconv.Unquote(s[j : k+1])
				if err != nil {
					return nil, fmt.Errorf("path %q: %w", s, err)
				}
				p = append(p, Segment{Key: key, Index: -1})
				i = k + 2
				continue
			}
			k := strings.IndexByte(s[j:], ']')
			if k < 0 {
				return nil, fmt.Errorf("path %q: unterminated index", s)
			}
			n, err := strconv.Atoi(s[j : j+k])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: bad index %q", s, s[j:j+k])
			}
			p = append(p, Segment{Index: n})
			i = j + k + 1
		default:
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			p = append(p, Segment{Key: s[i:j], Index: -1})
			i = j
		}
	}
	return p, nil
}
