package report

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShortMessageAsRunes holds shortMessage, which cuts a long message
// without copying it as runes, to the cut made on its runes: the same text
// for ASCII, multi-byte and invalid UTF-8, with and without spaces near
// the cut.
func TestShortMessageAsRunes(t *testing.T) {
	asRunes := func(msg string) (string, bool) {
		one := firstLine(msg)
		r := []rune(one)
		if len(r) <= maxTextMessage {
			return one, one != msg
		}
		return cutAt(r, maxTextMessage) + " …", true
	}
	pieces := []string{"a", "word", " ", " ", "é", "漢字", "🙂", ",", ";", ":", "(", "\xff", "x\xc3"}
	rng := rand.New(rand.NewPCG(1, 2))
	msgs := []string{
		"", "short", strings.Repeat("a", maxTextMessage), strings.Repeat("a", maxTextMessage+1),
		strings.Repeat("é", maxTextMessage+1), strings.Repeat("ab ", 100), strings.Repeat("漢 ", 80),
		strings.Repeat("a", maxTextMessage) + " tail", strings.Repeat("a", maxTextMessage/2) + " " + strings.Repeat("b", 200),
	}
	for range 5000 {
		var b strings.Builder
		for n := 100 + rng.IntN(400); b.Len() < n; {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(500) == 0 {
				b.WriteByte('\n')
			}
		}
		msgs = append(msgs, b.String())
	}
	long := 0
	for _, m := range msgs {
		want, wantCut := asRunes(m)
		got, gotCut := shortMessage(m)
		if got != want || gotCut != wantCut {
			t.Fatalf("shortMessage(%q) = %q, %v; cut as runes: %q, %v", m, got, gotCut, want, wantCut)
		}
		if utf8.RuneCountInString(firstLine(m)) > maxTextMessage {
			long++
		}
	}
	if long < 100 {
		t.Fatalf("only %d of %d messages were long enough to be cut", long, len(msgs))
	}
}
