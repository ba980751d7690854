// Package report writes check results in the formats people and tools read:
// text for terminals, JSON, SARIF 2.1.0 for code scanning, GitHub workflow
// commands, and GitLab Code Quality.
package report

import (
	"bufio"
	"fmt"
	"io"
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
	for _, f := range res.Findings {
		fmt.Fprintf(b, "%s:%d:%d %s %s %s\n", f.File, f.Line, f.Column, f.Severity, f.RuleID, strings.ReplaceAll(f.Message, "\n", "\n    "))
		if f.Fix != nil {
			fmt.Fprintf(b, "    fix: %s\n", f.Fix.Description)
			for _, l := range f.Fix.Describe() {
				fmt.Fprintf(b, "      %s\n", strings.ReplaceAll(l, "\n", "\n      "))
			}
		}
	}
	c := Count(res.Findings)
	fmt.Fprintf(b, "%d files, %d objects: %d errors, %d warnings, %d info\n", len(res.Files), res.Objects, c.Errors, c.Warnings, c.Infos)
	return b.Flush()
}
