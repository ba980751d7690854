package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/plural"

	"github.com/prodready/prodready/internal/inert"
)

// GitHub writes GitHub Actions workflow commands, one per finding:
// `::error file=…,line=…,endLine=…,col=…,title=…::message`, at most
// GitHubAnnotationsPerLevel of each level.
func GitHub(w io.Writer, res *checks.Result) error { return Write(w, "github", res, "") }

// GitHubAnnotationsPerLevel is how many annotations of each level (error,
// warning, notice) GitHub shows for one step; it drops the rest. The
// github format writes no more, and says how many it left out.
const GitHubAnnotationsPerLevel = 10

// githubLevels are the annotation levels, most serious first.
var githubLevels = []string{"error", "warning", "notice"}

// githubAnnotations writes the github format's annotations, up to
// GitHubAnnotationsPerLevel of each level, and counts the rest.
type githubAnnotations struct {
	written, left map[string]int
	// summary holds the step summary's rows (kept only when one is
	// written).
	summary summaryRows
}

// summaryRows are the step summary's table rows, made as the findings
// arrive: only as many as fit in the summary are held, the rest counted.
type summaryRows struct {
	rows  []string
	bytes int // of rows
	more  int // findings past the rows held
}

// add makes the rows of fs, or counts them once the rows held fill the
// summary whatever its head.
func (s *summaryRows) add(fs []checks.Finding) {
	for _, f := range fs {
		if s.bytes > maxStepSummaryBytes {
			s.more++
			continue
		}
		row := fmt.Sprintf("| %s | `%s` | %s | %s |\n", f.Severity, f.RuleID, markdownCode(fmt.Sprintf("%s:%d", f.File, f.Line)), markdownCell(firstLine(f.Message)))
		s.rows = append(s.rows, row)
		s.bytes += len(row)
	}
}

// add writes the annotations of fs; keep holds their rows for the step
// summary.
func (g *githubAnnotations) add(b *bufio.Writer, fs []checks.Finding, keep bool) {
	if keep {
		g.summary.add(fs)
	}
	for _, f := range fs {
		level := githubLevel(f.Severity)
		if !g.room(level) {
			continue
		}
		end := f.EndLine
		if end < f.Line {
			end = f.Line
		}
		msg := f.Message
		if f.Fix != nil {
			msg += "\nFix: " + f.Fix.Description
			if f.Fix.Withheld != "" {
				msg += "\nWithheld: " + f.Fix.Withheld
			}
		}
		fmt.Fprintf(b, "::%s file=%s,line=%d,endLine=%d,col=%d,title=%s::%s\n",
			level, escapeProperty(f.File), f.Line, end, f.Column,
			escapeProperty("prodready "+f.RuleID), EscapeWorkflowMessage(msg))
	}
}

// room counts one more annotation of level and reports whether it is
// within GitHub's cap.
func (g *githubAnnotations) room(level string) bool {
	if g.written == nil {
		g.written, g.left = map[string]int{}, map[string]int{}
	}
	if g.written[level] >= GitHubAnnotationsPerLevel {
		g.left[level]++
		return false
	}
	g.written[level]++
	return true
}

// close writes the files not checked as notices (within the cap too) and,
// when the cap left annotations out, a last line that says how many.
func (g *githubAnnotations) close(b *bufio.Writer, skipped []NotChecked, listedIn string) {
	for _, n := range skipped {
		if g.room("notice") {
			fmt.Fprintf(b, "::notice file=%s,title=%s::%s\n", escapeProperty(n.Path), escapeProperty("prodready: not checked"), EscapeWorkflowMessage(n.Reason))
		}
	}
	var left []string
	for _, level := range githubLevels {
		if n := g.left[level]; n > 0 {
			left = append(left, plural.Count(n, level, level+"s"))
		}
	}
	if len(left) == 0 {
		return
	}
	fmt.Fprintf(b, "prodready: GitHub shows %d annotations of each level per step: %s more not annotated (%s lists them all)\n",
		GitHubAnnotationsPerLevel, strings.Join(left, ", "), listedIn)
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

// maxStepSummaryBytes bounds the step summary: GitHub refuses one over
// 1 MiB. Rows past it are counted instead.
const maxStepSummaryBytes = 1<<20 - 4<<10

// writeStepSummary writes the Markdown job summary of a run: the config,
// the counts, every finding (one row each, its message on one line) and
// the files not checked.
func writeStepSummary(w io.Writer, rows summaryRows, skipped []NotChecked, counts, config string) error {
	var b strings.Builder
	b.WriteString("## prodready\n\n")
	if config != "" {
		fmt.Fprintf(&b, "Config: %s\n\n", markdownCell(config))
	}
	fmt.Fprintf(&b, "%s\n\n", counts)
	if len(rows.rows) > 0 {
		b.WriteString("| Severity | Rule | Location | Message |\n|---|---|---|---|\n")
		for i, row := range rows.rows {
			if b.Len()+len(row) > maxStepSummaryBytes {
				fmt.Fprintf(&b, "\n…and %s (prodready check lists them all).\n", plural.Count(len(rows.rows)-i+rows.more, "more finding", "more findings"))
				break
			}
			b.WriteString(row)
		}
		b.WriteString("\n")
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "**%s not checked:**\n\n", plural.Count(len(skipped), "file", "files"))
		for i, n := range skipped {
			row := fmt.Sprintf("- %s: %s\n", markdownCode(n.Path), markdownCell(n.Reason))
			if b.Len()+len(row) > maxStepSummaryBytes {
				fmt.Fprintf(&b, "- …and %d more\n", len(skipped)-i)
				break
			}
			b.WriteString(row)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownCell makes s, text from the files, inert (see inert.Text: one
// line, no mention, reference, HTML or link) in a table cell, its pipes
// escaped.
func markdownCell(s string) string {
	return strings.ReplaceAll(inert.Text(s), "|", "\\|")
}

// markdownCode renders s as an inert code span (see inert.Code) for a
// table cell.
func markdownCode(s string) string {
	return strings.ReplaceAll(inert.Code(s), "|", "\\|")
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
