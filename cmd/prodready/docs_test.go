package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// maxReadmeLines is the README's bound: it is the front door (what
// prodready is, a demo, install, set-up, the hosts, config, peers,
// dependencies) and everything else lives in docs/.
const maxReadmeLines = 200

// TestReadmeIsShort fails when README.md has 200 lines or more: move the
// detail to a page under docs/ and link it.
func TestReadmeIsShort(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	if lines >= maxReadmeLines {
		t.Errorf("README.md has %d lines; keep it under %d and move the detail to docs/", lines, maxReadmeLines)
	}
}

// TestDocLinksResolve checks every relative link of README.md and
// docs/*.md: the file or folder it names exists, and an anchor
// (#section) names a heading of the Markdown file it points at, spelt as
// GitHub makes anchors. Links in code blocks and code spans are not links;
// links with a scheme (https:, mailto:) are not checked.
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	files := []string{filepath.Join(root, "README.md")}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md found")
	}
	files = append(files, docs...)

	anchors := map[string]map[string]bool{} // by cleaned path
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		a := headingAnchors(string(data))
		anchors[path] = a
		return a, nil
	}

	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, file)
		for _, target := range markdownLinks(string(data)) {
			if schemeRe.MatchString(target) {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %s does not exist", name, target, path)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %q: an anchor into a file that is not Markdown", name, target)
				continue
			}
			a, err := anchorsOf(filepath.Clean(dest))
			if err != nil {
				t.Errorf("%s: link %q: %v", name, target, err)
				continue
			}
			if !a[anchor] {
				t.Errorf("%s: link %q: %s has no heading whose anchor is #%s", name, target, filepath.Base(dest), anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the link parser is broken")
	}
}

// schemeRe is a link with a scheme (https:, mailto:), which is not a file.
var schemeRe = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// linkRe is an inline link's or image's target: ](target), a title
// ("…") after it allowed.
var linkRe = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// markdownLinks returns the targets of the inline links in md, leaving out
// fenced code blocks and code spans.
func markdownLinks(md string) []string {
	var targets []string
	for _, m := range linkRe.FindAllStringSubmatch(stripCode(md), -1) {
		targets = append(targets, m[1])
	}
	return targets
}

// stripCode blanks fenced code blocks (``` or ~~~, closed by a fence of the
// same character at least as long) and code spans (a run of backticks up to
// the next run of the same length), keeping line breaks.
func stripCode(md string) string {
	var out strings.Builder
	fence := ""
	for _, line := range strings.SplitAfter(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(strings.TrimSpace(trimmed), fence[:1]) == "" {
				fence = ""
			}
			out.WriteString("\n")
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			out.WriteString("\n")
			continue
		}
		out.WriteString(line)
	}
	return stripSpans(out.String())
}

// fenceOf returns the opening fence a line starts with ("```", "````",
// "~~~"), or "". A backtick fence's info string holds no backtick, so
// "```` ```suggestion ```` blocks" opens no block: it is a code span.
func fenceOf(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 && (c == '~' || !strings.Contains(line[n:], "`")) {
			return line[:n]
		}
	}
	return ""
}

// stripSpans removes code spans: from a run of n backticks to the next run
// of exactly n. An unclosed run is kept as text.
func stripSpans(s string) string {
	var out strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			out.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(s); {
			if s[j] != '`' {
				j++
				continue
			}
			k := 0
			for j+k < len(s) && s[j+k] == '`' {
				k++
			}
			if k == n {
				end = j + k
				break
			}
			j += k
		}
		if end < 0 {
			out.WriteString(s[i : i+n])
			i += n
			continue
		}
		out.WriteString(strings.Repeat("\n", strings.Count(s[i:end], "\n")))
		i = end
	}
	return out.String()
}

// headingAnchors returns the anchors GitHub gives the ATX headings of md
// (outside code blocks): the text lowercased, each space a hyphen,
// punctuation other than hyphens and underscores removed; a repeated
// anchor gets -1, -2….
func headingAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			continue
		}
		level := 0
		for level < len(line) && line[level] == '#' {
			level++
		}
		if level == 0 || level > 6 || level == len(line) || line[level] != ' ' {
			continue
		}
		text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
		var slug strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				slug.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				slug.WriteRune(r)
			}
		}
		a := slug.String()
		if n := seen[a]; n > 0 {
			seen[a] = n + 1
			a = a + "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		anchors[a] = true
	}
	return anchors
}

// TestFlagTableIsCurrent runs `prodready docs flags` as a process and
// fails when docs/flags.md, the one table of every command's flags, their
// environment variables and defaults, says something else: a flag added,
// renamed or given a new default without `make docs`.
func TestFlagTableIsCurrent(t *testing.T) {
	want, err := os.ReadFile("../../docs/flags.md")
	if err != nil {
		t.Fatal(err)
	}
	got, errOut, code := runCLI(t, ".", "docs", "flags")
	if code != 0 {
		t.Fatalf("prodready docs flags exited %d:\n%s", code, errOut)
	}
	for _, name := range []string{"`--output`", "`--no-color`", "`--log-level`", "`PRODREADY_LOG_LEVEL`", "`GITHUB_APP_ID`", "`--queue-size`"} {
		if !strings.Contains(got, name) {
			t.Errorf("prodready docs flags does not name %s", name)
		}
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("docs/flags.md differs from the binary at line %d: run `make docs`\n  file:   %s\n  binary: %s", i+1, w, g)
			}
		}
	}
}
