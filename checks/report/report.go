// Package report writes check results in the formats people and tools read:
// text for terminals (and compact, one line per finding), JSON, SARIF 2.1.0
// for code scanning, GitHub workflow commands, GitLab Code Quality, and
// JUnit XML for CI test reports.
package report

import (
	"bufio"
	"io"
	"strings"

	"github.com/prodready/prodready/checks"
)

// Formats lists the names Write accepts.
var Formats = []string{"text", "wide", "compact", "json", "sarif", "github", "codequality", "junit"}

// Write renders a run's findings in format to w; version is prodready's,
// which SARIF names.
func Write(w io.Writer, format string, res *checks.Result, version string) error {
	return WriteWith(w, format, res, Options{Version: version})
}

// WriteWith is Write with every option of a report.
func WriteWith(w io.Writer, format string, res *checks.Result, opts Options) error {
	s, err := NewStream(w, format, opts)
	if err != nil {
		return err
	}
	if err := s.Add(res.Findings); err != nil {
		return err
	}
	return s.Close(res)
}

// Counts tallies findings by severity.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// Count tallies fs.
func Count(fs []checks.Finding) Counts {
	var c Counts
	c.add(fs)
	return c
}

// add tallies fs into c.
func (c *Counts) add(fs []checks.Finding) {
	for _, f := range fs {
		switch f.Severity {
		case checks.Error:
			c.Errors++
		case checks.Warning:
			c.Warnings++
		default:
			c.Infos++
		}
	}
}

// Text writes the text format: each file's findings under its name, one
// line a finding and its fix on a second line, then the files not
// checked, the counts per rule and the summary.
func Text(w io.Writer, res *checks.Result) error { return Write(w, "text", res, "") }

// WriteWide writes fs as the wide format writes them (no summary): each
// finding's whole message, its fix and the fix's edits.
func WriteWide(w io.Writer, fs []checks.Finding) error {
	b := bufio.NewWriter(w)
	writeText(b, fs)
	return b.Flush()
}

// writeText writes the wide format's lines for fs: one a finding,
// `file:line:col severity rule-id message` with the whole message, then
// the fix and each of its edits indented under it.
func writeText(b *bufio.Writer, fs []checks.Finding) {
	for _, f := range fs {
		writePosition(b, f)
		b.WriteByte(' ')
		b.WriteString(f.Severity.String())
		b.WriteByte(' ')
		b.WriteString(f.RuleID)
		b.WriteByte(' ')
		writeIndented(b, f.Message, "\n    ")
		b.WriteByte('\n')
		if f.Fix != nil {
			b.WriteString("    fix: ")
			if f.Fix.Kind == checks.StartingPoint {
				b.WriteString("(starting point) ")
			}
			b.WriteString(f.Fix.Description)
			b.WriteByte('\n')
			if f.Fix.Withheld != "" {
				b.WriteString("    withheld: " + f.Fix.Withheld + "\n")
			}
			writeEdits(b, f.Fix, "      ")
		}
	}
}

// writeEdits writes a fix's edits for people, one line each after prefix
// ("set spec.replicas: 3"): a value of several lines goes under its line,
// one level deeper; a newline anywhere else is followed by prefix too.
// Written piece by piece, as the findings are.
func writeEdits(b *bufio.Writer, fx *checks.Fix, prefix string) {
	newline := "\n" + prefix
	for _, op := range fx.Edits {
		b.WriteString(prefix)
		switch op.Action {
		case "delete":
			b.WriteString("delete ")
		case "append":
			b.WriteString("append to ")
		default:
			b.WriteString("set ")
		}
		for i, e := range op.Path {
			if i > 0 {
				b.WriteByte('.')
			}
			writeIndented(b, e, newline)
		}
		if op.Action != "delete" {
			v := strings.TrimSpace(op.Value)
			if !strings.Contains(v, "\n") {
				b.WriteString(": ")
				b.WriteString(v)
			} else {
				b.WriteByte(':')
				for line := range strings.SplitSeq(v, "\n") {
					b.WriteString(newline)
					b.WriteString("  ")
					b.WriteString(line)
				}
			}
		}
		b.WriteByte('\n')
	}
}

// writeIndented writes s with every newline replaced by newline.
func writeIndented(b *bufio.Writer, s, newline string) {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		b.WriteString(newline)
		s = s[i+1:]
	}
}
