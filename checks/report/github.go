package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/prodready/prodready/checks"
)

// GitHub writes GitHub Actions workflow commands, one per finding:
// `::error file=…,line=…,endLine=…,col=…,title=…::message`.
func GitHub(w io.Writer, res *checks.Result) error {
	var b strings.Builder
	for _, f := range res.Findings {
		end := f.EndLine
		if end < f.Line {
			end = f.Line
		}
		msg := f.Message
		if f.Fix != nil {
			msg += "\nFix: " + f.Fix.Description
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,endLine=%d,col=%d,title=%s::%s\n",
			githubLevel(f.Severity), escapeProperty(f.File), f.Line, end, f.Column,
			escapeProperty("prodready "+f.RuleID), escapeData(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// escapeData escapes a workflow command's message as the Actions runner
// expects.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
