package report

import (
	"bufio"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"
)

// writeCompact writes the compact format's lines for fs: one a finding,
// `file:line:col: severity: message [rule-id]` (the shape compilers print
// and editors' problem matchers read), without the fix.
func writeCompact(b *bufio.Writer, fs []checks.Finding) {
	for _, f := range fs {
		writePosition(b, f)
		b.WriteString(": ")
		b.WriteString(f.Severity.String())
		b.WriteString(": ")
		b.WriteString(firstLine(f.Message))
		b.WriteString(" [")
		b.WriteString(f.RuleID)
		b.WriteString("]\n")
	}
}

// writePosition writes where f is, `file:line:col`, piece by piece, not
// with fmt: a corpus run prints thousands of findings.
func writePosition(b *bufio.Writer, f checks.Finding) {
	var num [20]byte
	b.WriteString(f.File)
	b.WriteByte(':')
	b.Write(strconv.AppendInt(num[:0], int64(f.Line), 10))
	b.WriteByte(':')
	b.Write(strconv.AppendInt(num[:0], int64(f.Column), 10))
}

// firstLine is a message on one line: a message of several (one that
// quotes the YAML to add) is cut after its first, its colon dropped and
// an ellipsis put in the place of the rest.
func firstLine(msg string) string {
	first, rest, cut := strings.Cut(msg, "\n")
	if !cut || strings.TrimSpace(rest) == "" {
		return first
	}
	return strings.TrimSuffix(strings.TrimRight(first, " "), ":") + " …"
}
