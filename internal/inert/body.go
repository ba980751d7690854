package inert

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Commands keeps every line of a GitLab body outside fenced code blocks
// from starting with "/" (after optional white space), where GitLab would
// run it as a quick action as the bot: such a line gets a backslash before
// its "/", which Markdown shows as the "/" alone. Lines inside fences are
// left as they are: they are code, and GitLab runs no quick action there.
func Commands(body string) string {
	lines := strings.SplitAfter(body, "\n")
	changed := false
	outsideFences(lines, func(i int, l string) {
		t := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(t, "/") {
			lines[i] = l[:len(l)-len(t)] + `\` + t
			changed = true
		}
	})
	if !changed {
		return body
	}
	return strings.Join(lines, "")
}

// opens returns the fence a line opens (its run of ``` or ~~~, at most
// three spaces in), "" when it opens none.
func opens(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return ""
	}
	return t[:n]
}

// closes reports whether a line closes fence: a run of its character at
// least as long, and nothing else.
func closes(l, fence string) bool {
	t := strings.TrimLeft(strings.TrimRight(l, " \t\r\n"), " ")
	if len(l)-len(strings.TrimLeft(l, " ")) > 3 || len(t) < len(fence) {
		return false
	}
	return strings.Trim(t, fence[:1]) == ""
}

// leakPatterns are the patterns Leaks reads a body with. Only the bot and
// the tests check bodies, so they are compiled on first use, not when the
// package is initialised: every `prodready check` links this package and
// compiling the Unicode classes of reference cost about half a millisecond
// of its start-up.
var leakPatterns = sync.OnceValue(func() *patterns {
	return &patterns{
		ownTag:     regexp.MustCompile(`^(<(/?details|/?summary|br)>|<!-- prodready:(thread|fp)=[0-9a-zA-Z_-]+ -->|<!-- prodready:(summary|fixed) -->)`),
		ownHeading: regexp.MustCompile(`^#{2,4} (prodready|New in this pull request|Reported \(review\.report: [a-z]+\)|Fixed|Ignored by this pull request|Not commentable on the diff|Apply fixes)$`),
		ownLink:    regexp.MustCompile(`^\[(Docs|line \d+)\]\(https://[^ ()]+\)`),
		ownLinks:   regexp.MustCompile(`\[(Docs|line \d+)\]\(https://[^ ()]+\)`),
		reference:  regexp.MustCompile(`@[\p{L}\p{N}_]|[#!&~%$][\p{N}"]|(?i)gh-\d|://`),
	}
})

// patterns are what a body of the bot's own may hold (its tags, headings
// and links), and what no body may (a mention or reference).
type patterns struct {
	ownTag, ownHeading, ownLink, ownLinks, reference *regexp.Regexp
}

// Leaks lists what in a Markdown body could act rather than show, as this
// bot writes bodies: a line outside fenced code blocks that starts with "/"
// (a GitLab quick action) or is a heading the bot does not write, and
// outside code spans and fences a mention or reference (@name, #1, !1,
// GH-1, a URL), HTML other than the bot's own tags (details, summary, br)
// and markers, and a link or image other than the bot's own (Docs, line
// N). It reads spans and fences the way CommonMark does. An empty list
// means the body is inert.
func Leaks(body string) []string {
	var out []string
	p := leakPatterns()
	outsideFences(strings.Split(body, "\n"), func(n int, l string) {
		at := func(what string) { out = append(out, fmt.Sprintf("line %d: %s: %q", n+1, what, l)) }
		t := strings.TrimLeft(l, " \t")
		switch {
		case strings.HasPrefix(t, "/"):
			at("starts with /")
		case strings.HasPrefix(t, "#") && !p.ownHeading.MatchString(t):
			at("heading")
		}
		for _, seg := range spans(l) {
			if seg.code {
				if strings.ContainsFunc(seg.text, isBreak) {
					at("line break in a code span")
				}
				continue
			}
			s := seg.text
			for i := 0; i < len(s); i++ {
				switch s[i] {
				case '\\':
					i++
				case '<':
					if p.ownTag.FindString(s[i:]) == "" {
						at("HTML")
					}
				case '[':
					if m := p.ownLink.FindString(s[i:]); m != "" {
						i += len(m) - 1
					} else if strings.Contains(s[i:], "](") {
						at("link")
					}
				}
			}
			if p.reference.MatchString(strings.ReplaceAll(p.ownLinks.ReplaceAllString(s, ""), `\`, "")) {
				at("mention or reference")
			}
		}
	})
	return out
}

// Markers lists the HTML comments of a body that a Markdown renderer (and
// a reader of markers) would take as comments: those outside code spans and
// fenced code blocks, in order.
func Markers(body string) []string {
	var out []string
	outsideFences(strings.Split(body, "\n"), func(_ int, l string) {
		for _, seg := range spans(l) {
			s := seg.text
			for !seg.code {
				i := strings.Index(s, "<!--")
				if i < 0 || (i > 0 && s[i-1] == '\\') {
					break
				}
				end := strings.Index(s[i:], "-->")
				if end < 0 {
					out = append(out, s[i:])
					break
				}
				out = append(out, s[i:i+end+3])
				s = s[i+end+3:]
			}
		}
	})
	return out
}

// outsideFences calls f with each line of lines (and its index) that is
// neither inside a fenced code block nor one of its fences, reading fences
// the way CommonMark does.
func outsideFences(lines []string, f func(i int, line string)) {
	var fence string
	for i, l := range lines {
		if fence != "" {
			if closes(l, fence) {
				fence = ""
			}
			continue
		}
		if open := opens(l); open != "" {
			fence = open
			continue
		}
		f(i, l)
	}
}
