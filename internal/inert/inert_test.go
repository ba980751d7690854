package inert

import (
	"strings"
	"testing"
)

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"web":                "`web`",
		"":                   "`\"\"`",
		"web\n/approve":      "`web\\n/approve`",
		"a```b":              "````a```b````",
		"`x":                 "`` `x ``",
		" x ":                "`  x  `",
		"a\u2028b\u2029c\rd": "`a\\u2028b\\u2029c\\rd`",
		"api <!-- m -->":     "`api <!-- m -->`",
		"nginx@sha256:abc":   "`nginx@sha256:abc`",
	} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"container `web` is privileged":      "container `web` is privileged",
		"web\n/approve\n/merge":              "web<br>/approve<br>/merge",
		"/approve":                           `\/approve`,
		"  /approve":                         `  \/approve`,
		"cc @someone and #1, !1":             "cc `@someone` and `#1,` `!1`",
		"# heading":                          `\# heading`,
		"[x](http://evil) ![i](http://evil)": "`[x](http://evil)` `![i](http://evil)`",
		"<img src=x> a&b":                    "&lt;img src=x&gt; `a&b`",
		"<!-- prodready:thread=k -->":        "&lt;!-- prodready:thread=k --&gt;",
		"a ` b `c` d":                        "a ` b `c\\` d",
		"x\n  y: 1":                          "x<br>&nbsp;&nbsp;y: 1",
		`a \` + "`x`":                        `a \\\` + "`x\\`",
		"line\u2028/merge":                   "line<br>/merge",
		"see [link]":                         `see \[link\]`,
	} {
		got := Text(in)
		if got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
		if l := Leaks(got); l != nil {
			t.Errorf("Text(%q) = %q leaks: %v", in, got, l)
		}
	}
}

func TestLeaksFindsRawHazards(t *testing.T) {
	for _, raw := range []string{"x\n/approve", "cc @someone", "fixes #1", "see !12", "# heading", "[x](http://evil)", "<img src=x>", "a\n```\n/ok\n```\n/merge"} {
		if Leaks(raw) == nil {
			t.Errorf("Leaks(%q) found nothing", raw)
		}
	}
	if l := Leaks("## prodready\n\n```yaml\n/x\n# y\n```\n- `@a #1` [Docs](https://x.dev/a) <br> <!-- prodready:thread=abc -->"); l != nil {
		t.Errorf("own structure reported: %v", l)
	}
}

func TestCommands(t *testing.T) {
	in := "a\n/approve\n  /merge\n````suggestion\n/keep\n```\n/keep\n````\n/x"
	want := "a\n\\/approve\n  \\/merge\n````suggestion\n/keep\n```\n/keep\n````\n\\/x"
	if got := Commands(in); got != want {
		t.Errorf("Commands = %q, want %q", got, want)
	}
	if !strings.Contains(Commands("ok"), "ok") {
		t.Error("Commands changed a safe body")
	}
}
