package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/prodready/prodready/checks"
)

// GitHub writes GitHub Actions workflow commands, one per finding:
// `::error file=…,line=…,endLine=…,col=…,title=…::message`.
func GitHub(w io.Writer, res *checks.Result) error { return Write(w, "github", res, "") }

// writeGitHub writes GitHub's workflow commands for fs.
func writeGitHub(b *bufio.Writer, fs []checks.Finding) {
	for _, f := range fs {
		end := f.EndLine
		if end < f.Line {
			end = f.Line
		}
		msg := f.Message
		if f.Fix != nil {
			msg += "\nFix: " + f.Fix.Description
		}
		fmt.Fprintf(b, "::%s file=%s,line=%d,endLine=%d,col=%d,title=%s::%s\n",
			githubLevel(f.Severity), escapeProperty(f.File), f.Line, end, f.Column,
			escapeProperty("prodready "+f.RuleID), EscapeWorkflowMessage(msg))
	}
}

func githubLevel(s checks.Severity) string {
	switch s {
	case checks.Error:
		return "error"
	case checks.Warning:
		return "warning"
	}
	return "notice"
}

// The escapes the Actions runner expects in a workflow command's message
// and in its property values (built once: a Replacer is costly to build).
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// EscapeWorkflowMessage escapes the message of a GitHub Actions workflow
// command (::error::message) so that it stays one command.
func EscapeWorkflowMessage(s string) string { return dataEscaper.Replace(s) }

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
