package tmplmark

import (
	"strings"
	"testing"
)

// A helper's marked output read by fromYaml gives the values the unmarked
// text gives (a mark after "component:" is not a YAML comment eating the
// value), and toYaml of the map writes Helm's text again with each key's
// mark at the end of its line.
func TestCarryKeepsMarksThroughFromYamlToYaml(t *testing.T) {
	var c Carry
	f := c.Funcs()
	fromYaml := f["fromYaml"].(func(string) map[string]any)
	toYaml := f["toYaml"].(func(any) string)

	marked := "app.kubernetes.io/component: #@pr3.38@ admission-controller\nspec:\n  replicas: #@pr3.40@ 2\n  paused: false"
	m := fromYaml(marked)
	if got := m["app.kubernetes.io/component"]; got != "admission-controller" {
		t.Fatalf("component = %#v, want the value the unmarked text has", got)
	}
	out := toYaml(m)
	want := "app.kubernetes.io/component: admission-controller\nspec:\n  paused: false\n  replicas: 2"
	if Strip(out) != want {
		t.Fatalf("toYaml stripped:\n%s\nwant Helm's:\n%s", Strip(out), want)
	}
	lines := strings.Split(out, "\n")
	for i, wantMark := range map[int]Mark{0: {File: 3, Line: 38}, 3: {File: 3, Line: 40}} {
		_, ms := ReadLine(lines[i])
		if len(ms) != 1 || ms[0].File != wantMark.File || ms[0].Line != wantMark.Line {
			t.Errorf("line %d %q: marks %+v, want %d.%d", i+1, lines[i], ms, wantMark.File, wantMark.Line)
		}
	}
	// A map within the parsed one keeps its keys' marks too.
	sub := toYaml(m["spec"])
	if _, ms := ReadLine(strings.Split(sub, "\n")[1]); len(ms) != 1 || ms[0].Line != 40 {
		t.Errorf("toYaml of spec = %q, want replicas marked 3.40", sub)
	}
	// A map fromYaml did not make is written as Helm writes it.
	if got := toYaml(map[string]any{"a": 1}); got != "a: 1" {
		t.Errorf("toYaml of a plain map = %q", got)
	}
}

// Checksums and encodings are of the text as Helm renders it.
func TestCarryChecksumsIgnoreMarks(t *testing.T) {
	var c Carry
	f := c.Funcs()
	for _, name := range []string{"sha256sum", "sha1sum", "sha512sum", "adler32sum", "b64enc", "b32enc"} {
		fn := f[name].(func(string) string)
		if fn("data: #@pr1.2@ x") != fn("data: x") {
			t.Errorf("%s differs with a mark", name)
		}
	}
	fromJSON := f["fromJson"].(func(string) map[string]any)
	if m := fromJSON(`{"a": 1} #@pr1.2@`); m["Error"] != nil {
		t.Errorf("fromJson of marked JSON: %v", m["Error"])
	}
}
