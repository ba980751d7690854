package tmplmark

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The regular expressions isKeyLine, isItemLine and nextMark are written
// out from.
var (
	keyLineRe  = regexp.MustCompile(`^\s*(?:-\s+)*(?:"[^"]*"|'[^']*'|[^\s:#{}"'\[\]\-|>][^:#{}]*?)\s*:(?:\s|$)`)
	itemLineRe = regexp.MustCompile(`^\s*-(?:\s|$)`)
	markRe     = regexp.MustCompile(` #@p(?:r(\d+)\.(\d+)|v(\d+)([be]))@`)
)

// lineSamples are lines the three are tried on: edge cases, every line of
// the repository's chart fixtures, and random lines of the characters
// that matter to them.
func lineSamples(t *testing.T) []string {
	out := []string{"", " ", "-", "- ", "-x", "a:", "a: ", "a:b", " a :", "- - a: 1", "- -: x", `"a": 1`, `"a":1`, `"a" : 1`, `'a':`, `"a`,
		"a#: b", "a{: b", "- [a]: b", "|: x", ">: x", "-\t- k:\tv", "\f- k:\f", "é: x", "\xff: y", "{{ .x }}: y", "key: {{ .Values.a }}",
		"a #@pr1.2@", "a #@pr1.@ #@pv3b@x #@pv3e@", " #@pv12b@ #@pr1.2@", " #@p #@pr01.002@", " #@pr1.2 #@pv1x@ #@pv1e@", " #@pr99999999999999999999.1@"}
	for _, dir := range []string{"../../testdata", "../../../../fixtures"} {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".tpl")) {
				return nil
			}
			data, err := os.ReadFile(p)
			if err == nil {
				out = append(out, strings.Split(string(data), "\n")...)
			}
			return nil
		})
	}
	if len(out) < 1000 {
		t.Fatalf("only %d sample lines: the fixtures moved", len(out))
	}
	const alphabet = " \t\f-:#{}\"'[]|>ab.@pr1v2be\xc3\xa9"
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		out = append(out, string(b))
	}
	for range 20000 { // marks among text
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString([]string{" #@pr", " #@pv", "1", "2.", "3", "b@", "e@", "@", "x", " ", "#@p"}[rng.IntN(11)])
		}
		out = append(out, b.String())
	}
	return out
}

func TestKeyAndItemLinesAsTheRegexps(t *testing.T) {
	for _, s := range lineSamples(t) {
		if got, want := isKeyLine(s), keyLineRe.MatchString(s); got != want {
			t.Errorf("isKeyLine(%q) = %v, the regexp says %v", s, got, want)
		}
		if got, want := isItemLine(s), itemLineRe.MatchString(s); got != want {
			t.Errorf("isItemLine(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}

func TestMarksReadAsTheRegexp(t *testing.T) {
	for _, s := range lineSamples(t) {
		if got, want := Strip(s), markRe.ReplaceAllString(s, ""); got != want {
			t.Errorf("Strip(%q) = %q, the regexp leaves %q", s, got, want)
		}
		var want []Mark
		for _, m := range markRe.FindAllStringSubmatchIndex(s, -1) {
			mk := Mark{Binding: -1}
			if m[2] >= 0 {
				mk.File = atoi(s[m[2]:m[3]])
				mk.Line = atoi(s[m[4]:m[5]])
			} else {
				mk.Binding = atoi(s[m[6]:m[7]])
				mk.Begin = s[m[8]:m[9]] == "b"
			}
			want = append(want, mk)
		}
		line, got := ReadLine(s)
		if stripped := markRe.ReplaceAllString(s, ""); line != stripped {
			t.Errorf("ReadLine(%q) leaves %q, the regexp %q", s, line, stripped)
		}
		if len(got) != len(want) {
			t.Errorf("ReadLine(%q): %d marks, the regexp finds %d", s, len(got), len(want))
			continue
		}
		for i := range got {
			got[i].Column = 0
			if got[i] != want[i] {
				t.Errorf("ReadLine(%q) mark %d = %+v, the regexp reads %+v", s, i, got[i], want[i])
			}
		}
	}
}

// atoi is strconv.Atoi with its error dropped, as ReadLine read numbers
// when the regexp found its marks.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestWithoutStringsAsTheRegexp holds withoutStrings, which runs the
// string-literal regexp only on text with a quote in it, to what the
// regexp alone gives: every literal a space, and text with none as it is.
func TestWithoutStringsAsTheRegexp(t *testing.T) {
	for _, s := range []string{
		"", ".Values.image.tag", `include "x.labels" .`, "$x := .Values.a",
		`printf "%s=%s" .a .b`, "default `a=b` .c", `'it''s' | quote`, `"unterminated`,
		`.a | default "x\"=y" | quote`, "(eq .Values.mode 'a=b')", "tpl .Values.x $",
	} {
		if got, want := withoutStrings(s), stringLit.ReplaceAllString(s, " "); got != want {
			t.Errorf("withoutStrings(%q) = %q, want %q", s, got, want)
		}
	}
}
