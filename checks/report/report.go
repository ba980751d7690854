// Package report writes check results in the formats people and tools read:
// text for terminals, JSON, SARIF 2.1.0 for code scanning, GitHub workflow
// commands, and GitLab Code Quality.
package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"
)

// Formats lists the names Write accepts.
var Formats = []string{"text", "json", "sarif", "github", "codequality"}

// Write renders findings in format to w.
func Write(w io.Writer, format string, res *checks.Result, version string) error {
	switch format {
	case "", "text":
		return Text(w, res)
	case "json":
		return JSON(w, res)
	case "sarif":
		return SARIF(w, res, version)
	case "github":
		return GitHub(w, res)
	case "codequality":
		return CodeQuality(w, res)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
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
	return c
}

// Text writes one line per finding, `file:line:col severity rule-id message`,
// followed by the fix indented under it, and a summary line.
func Text(w io.Writer, res *checks.Result) error {
	b := bufio.NewWriterSize(w, 64<<10) // streamed: a large run's report is never held whole
	var num [20]byte
	for _, f := range res.Findings {
		// Written piece by piece, not with fmt: a corpus run prints
		// thousands of findings.
		b.WriteString(f.File)
		b.WriteByte(':')
		b.Write(strconv.AppendInt(num[:0], int64(f.Line), 10))
		b.WriteByte(':')
		b.Write(strconv.AppendInt(num[:0], int64(f.Column), 10))
		b.WriteByte(' ')
		b.WriteString(f.Severity.String())
		b.WriteByte(' ')
		b.WriteString(f.RuleID)
		b.WriteByte(' ')
		writeIndented(b, f.Message, "\n    ")
		b.WriteByte('\n')
		if f.Fix != nil {
			b.WriteString("    fix: ")
			b.WriteString(f.Fix.Description)
			b.WriteByte('\n')
			for _, l := range f.Fix.Describe() {
				b.WriteString("      ")
				writeIndented(b, l, "\n      ")
				b.WriteByte('\n')
			}
		}
	}
	c := Count(res.Findings)
	fmt.Fprintf(b, "%d files, %d objects: %d errors, %d warnings, %d info\n", len(res.Files), res.Objects, c.Errors, c.Warnings, c.Infos)
	return b.Flush()
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
