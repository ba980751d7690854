package edit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHasOddBreak holds hasOddBreak's byte searches to the rune-by-rune
// reading it replaced: a lone "\r" anywhere, or NEL, LS or PS decoded,
// in valid and invalid UTF-8 alike.
func TestHasOddBreak(t *testing.T) {
	byRunes := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] == '\r' && (i+1 == len(s) || s[i+1] != '\n') {
				return true
			}
		}
		for _, r := range s {
			if r == '\u0085' || r == '\u2028' || r == '\u2029' {
				return true
			}
		}
		return false
	}
	cases := []string{
		"", "a: 1\n", "a: 1\r\n", "a: 1\r\nb: 2\r\n", "\r", "a\r", "\rb", "a\r\nb\rc", "a\r\r\n",
		"a: \u0085\n", "a: \u2028", "\u2029b", "caf\u00e9: \u2027 \u202a", "\xe2\x80", "\xe2\x80\xa8",
		"\xe2\xe2\x80\xa8", "\xc2\xc2\x85", "\xff\xc2\x85", "\xe2\x80\xa7\xa8", "\xf0\x9f\x98\x80 \u00c2\u0085",
		"x\xc2", "\u00c2 \u0085", strings.Repeat("key: value\r\n", 100) + "\r",
	}
	for _, s := range cases {
		if got, want := hasOddBreak(s), byRunes(s); got != want {
			t.Errorf("hasOddBreak(%q) = %v, reading rune by rune: %v", s, got, want)
		}
	}
	// Every string of up to four bytes drawn from the bytes the breaks
	// are made of, and one that is none of them.
	alphabet := []byte{'\r', '\n', 0xc2, 0x85, 0xe2, 0x80, 0xa8, 0xa9, 'a'}
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		s := string(prefix)
		if got, want := hasOddBreak(s), byRunes(s); got != want {
			t.Errorf("hasOddBreak(%q) = %v, reading rune by rune: %v (valid UTF-8: %v)", s, got, want, utf8.ValidString(s))
		}
		if len(prefix) == 4 {
			return
		}
		for _, b := range alphabet {
			walk(append(prefix, b))
		}
	}
	walk(nil)
}
