// Package tmplmark annotates Helm template text with invisible source marks so
// that the rendered output can be traced back to template and values lines.
//
// A mark is a short token such as " #@pr3.12@" (template file 3, line 12). The
// annotated template is rendered as usual; afterwards every mark is read off the
// output line it landed on and then stripped with [Strip], which restores the
// output byte for byte: marks never contain newlines and are inserted only where
// Go template whitespace trimming ({{- and -}}) cannot see them.
package tmplmark

import (
	"strings"
)

// token is one piece of template text: literal text or an action.
type token struct {
	start, end int  // byte offsets in the template; end is exclusive
	action     bool // true for {{ ... }}
	leftTrim   bool // action opens with "{{- "
	rightTrim  bool // action closes with " -}}"
	inner      string
}

// tokenize splits a Go template into literal text and actions. It follows the
// text/template lexer closely enough for marking: strings, raw strings, runes
// and comments inside actions may contain "}}".
func tokenize(src string) []token {
	var toks []token
	i := 0
	for i < len(src) {
		j := strings.Index(src[i:], "{{")
		if j < 0 {
			toks = append(toks, token{start: i, end: len(src)})
			break
		}
		if j > 0 {
			toks = append(toks, token{start: i, end: i + j})
		}
		a := i + j
		end := actionEnd(src, a+2)
		t := token{start: a, end: end, action: true}
		body := src[a+2 : max(a+2, end-2)]
		if strings.HasPrefix(body, "- ") || strings.HasPrefix(body, "-\t") || strings.HasPrefix(body, "-\n") || strings.HasPrefix(body, "-\r") {
			t.leftTrim = true
			body = body[1:]
		}
		if len(body) >= 2 && body[len(body)-1] == '-' && isSpace(body[len(body)-2]) {
			t.rightTrim = true
			body = body[:len(body)-1]
		}
		t.inner = strings.TrimSpace(body)
		toks = append(toks, t)
		i = end
	}
	return toks
}

// actionEnd returns the offset just past the "}}" closing the action whose body
// starts at i, or len(src) when it is unterminated.
func actionEnd(src string, i int) int {
	for i < len(src) {
		switch c := src[i]; {
		case c == '"' || c == '\'':
			i++
			for i < len(src) && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == '`':
			k := strings.IndexByte(src[i+1:], '`')
			if k < 0 {
				return len(src)
			}
			i += k + 2
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			k := strings.Index(src[i+2:], "*/")
			if k < 0 {
				return len(src)
			}
			i += k + 4
		case c == '}' && i+1 < len(src) && src[i+1] == '}':
			return i + 2
		default:
			i++
		}
	}
	return len(src)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
