package render

import (
	"fmt"
	"strconv"
	"strings"
)

// seg is one step of a key path: a mapping key, or a sequence index when
// key is "" and index >= 0.
type seg struct {
	key   string
	index int
}

// formatPath writes a path the way [Render.Locate] takes it:
// spec.template.spec.containers[0].image; keys holding ".", "[", "]" or a
// quote are written as ["helm.sh/hook"].
func formatPath(p []seg) string {
	var b strings.Builder
	for _, s := range p {
		switch {
		case s.index >= 0 && s.key == "":
			fmt.Fprintf(&b, "[%d]", s.index)
		case s.key == "" || strings.ContainsAny(s.key, `.[]"`):
			fmt.Fprintf(&b, "[%s]", strconv.Quote(s.key))
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// parsePath reads the syntax formatPath writes.
func parsePath(s string) ([]seg, error) {
	var p []seg
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
				p = append(p, seg{key: key, index: -1})
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
			p = append(p, seg{index: n})
			i = j + k + 1
		default:
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			p = append(p, seg{key: s[i:j], index: -1})
			i = j
		}
	}
	return p, nil
}
