// Package inert renders text that comes from the files under review (names,
// images, hosts, paths, label values: anything a pull request's author
// writes) so that, written into a comment on GitHub or GitLab, it only
// shows and never acts: no mention, no issue or merge-request reference,
// no heading, link, image or HTML, no new line where a GitLab quick action
// (/approve, /merge) could start, no backtick that opens or closes a code
// span or fence, no hidden marker the bot would take for its own.
//
// Code quotes one value as an inline code span, the form rules use in their
// messages. Text neutralises a whole message (or any other text from the
// files) outside the code spans it already has, the form every body builder
// uses. Commands keeps a GitLab body's lines from starting with "/".
//
// Code spans are the one way both hosts document to show @name, #1 or !1
// as text: GitHub does not turn text in code into mentions or references,
// and GitLab leaves references in code (and code blocks) alone, while a
// backslash before @ or # does not stop GitLab's references.
package inert

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Code renders s as an inline code span that shows s on one line: line
// breaks (\n, \r, U+2028, U+2029, U+0085) and other control characters
// are written as escapes, and the span's delimiter is longer than any run
// of backticks in s, so s can neither end the span nor start a line. The
// empty string is shown as `""`.
func Code(s string) string {
	s = oneLine(s)
	if s == "" {
		return "`\"\"`"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	// CommonMark strips one space on each side of a span whose content
	// starts and ends with a space; a backtick next to the delimiter would
	// join it. A space on each side keeps both as they are.
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// oneLine writes line breaks and control characters (tab aside) as Go
// escapes.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, needsEscape) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r))
}

// Fence returns the backtick fence of a fenced code block holding text:
// three backticks, or one more than the longest run of backticks in text,
// so that nothing in text can end the block early.
func Fence(text string) string {
	return strings.Repeat("`", max(3, longestRun(text, '`')+1))
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// isBreak reports whether r ends a line for a Markdown renderer or for
// GitLab's quick-action reader (which splits on any of them).
func isBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == '\u0085' || r == '\u2028' || r == '\u2029'
}

// Text neutralises s, a message or any other text from the files, for a
// Markdown body of GitHub or GitLab. Its code spans stay as they are (they
// are already inert, once on one line); outside them:
//
//   - each word holding a mention or reference (@name, #1, !1, GH-1, and
//     GitLab's ~label, %milestone, $snippet, &epic, or a URL, which both
//     hosts link and GitHub turns into a cross-reference) becomes a code
//     span of its own;
//   - < > & [ ] \ and stray backticks are escaped, so no HTML, comment,
//     entity, link, image or code span can start;
//   - # is escaped, so no heading can start, and a leading / is escaped;
//   - line breaks become <br> (indentation kept as no-break spaces), so the
//     text stays on one line of the body whatever it holds: no line of it
//     can start with / or #.
//
// Text is idempotent on its own output only in what it renders, not byte
// for byte: apply it once, where the text enters a body.
func Text(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	lines := splitBreaks(s)
	for li, line := range lines {
		if li > 0 {
			b.WriteString("<br>")
			n := len(line) - len(strings.TrimLeft(line, " \t"))
			b.WriteString(strings.Repeat("&nbsp;", n))
			line = line[n:]
		}
		for i, seg := range spans(line) {
			if seg.code {
				b.WriteString(oneLine(seg.text))
				continue
			}
			b.WriteString(plain(seg.text, li == 0 && i == 0))
		}
	}
	return b.String()
}

// splitBreaks splits s at every line break (CRLF counting as one).
func splitBreaks(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var out []string
	start := 0
	for i, r := range s {
		if isBreak(r) {
			out = append(out, s[start:i])
			start = i + utf8.RuneLen(r)
		}
	}
	return append(out, s[start:])
}

// segment is a part of one line: a code span (with its delimiters) or
// text.
type segment struct {
	text string
	code bool
}

// spans splits a line into code spans and text the way CommonMark does: a
// run of n backticks opens a span that the next run of exactly n closes; a
// backslash escapes the character after it outside spans; a run with no
// closing run is text.
func spans(line string) []segment {
	var out []segment
	start := 0 // of the current text segment
	i := 0
	for i < len(line) {
		switch line[i] {
		case '\\':
			i += 2
			continue
		case '`':
		default:
			i++
			continue
		}
		n := runAt(line, i)
		end := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := runAt(line, j)
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			i += n
			continue
		}
		if start < i {
			out = append(out, segment{text: line[start:i]})
		}
		out = append(out, segment{text: line[i:end], code: true})
		start, i = end, end
	}
	if start < len(line) {
		out = append(out, segment{text: line[start:]})
	}
	return out
}

func runAt(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// plain neutralises text outside code spans, word by word; first says
// whether it starts the whole text (where a / is escaped).
func plain(s string, first bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if i == j {
			b.WriteByte(s[i])
			i++
			continue
		}
		w := s[i:j]
		if refers(w) {
			b.WriteString(Code(unescape(w)))
		} else {
			for k := 0; k < len(w); k++ {
				c := w[k]
				switch c {
				case '<':
					b.WriteString("&lt;")
				case '>':
					b.WriteString("&gt;")
				case '&':
					b.WriteString("&amp;")
				case '\\', '[', ']', '`', '#':
					b.WriteByte('\\')
					b.WriteByte(c)
				case '/':
					if first && k == 0 && strings.TrimLeft(s[:i], " \t") == "" {
						b.WriteByte('\\')
					}
					b.WriteByte(c)
				default:
					b.WriteByte(c)
				}
			}
		}
		i = j
	}
	return b.String()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// unescape drops the backslashes of a word's escapes before it is quoted
// in a code span, where a backslash shows as itself.
func unescape(w string) string {
	if !strings.Contains(w, `\`) {
		return w
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] == '\\' && i+1 < len(w) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", w[i+1]) >= 0 {
			i++
		}
		b.WriteByte(w[i])
	}
	return b.String()
}

// refers reports whether a word may be read as a mention, a reference or
// a link by GitHub or GitLab.
func refers(w string) bool {
	if strings.Contains(w, "://") || strings.HasPrefix(strings.ToLower(w), "www.") {
		return true
	}
	for k := 0; k < len(w); k++ {
		switch w[k] {
		case '@':
			return true
		case '#', '!', '~', '%', '$', '&':
			if k+1 < len(w) && (isWord(w[k+1]) || w[k+1] == '"' || w[k+1] == '{' || w[k+1] == '[') {
				return true
			}
		case '-':
			if k >= 2 && strings.EqualFold(w[k-2:k], "gh") && k+1 < len(w) && w[k+1] >= '0' && w[k+1] <= '9' {
				return true
			}
		}
	}
	return false
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
