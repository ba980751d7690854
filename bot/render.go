package bot

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/internal/inert"
	"github.com/prodready/prodready/internal/plural"
)

// Suggestion is a replacement for whole lines of a file, the shape of
// checks/fix.Suggestion: what a ```suggestion block proposes.
type Suggestion struct {
	// StartLine and EndLine are the 1-based, inclusive lines of the file
	// the suggestion replaces.
	StartLine, EndLine int
	// Text is the replacement: whole lines (a trailing newline is optional;
	// empty text deletes the lines).
	Text string
	// Findings are indexes into the findings the suggestion was made for.
	Findings []int
}

// Body limits of the hosts' APIs (GitHub: 65,536 characters per comment,
// review body; check-run summary 65,535; annotation messages 64 KiB, titles
// 255 characters).
const (
	MaxBodyChars            = 65536
	MaxSummaryChars         = 65535
	MaxAnnotationTitleChars = 255
)

// FingerprintMarker is the hidden HTML comment that carries a finding's
// fingerprint in every inline comment the bot posts.
func FingerprintMarker(fp string) string { return "<!-- prodready:fp=" + fp + " -->" }

var (
	markerRE  = regexp.MustCompile(`^<!-- prodready:fp=([0-9a-zA-Z_-]+) -->$`)
	trailerRE = regexp.MustCompile(`<!-- prodready:(?:fp|thread)=[0-9a-zA-Z_-]+ -->\s*$`)
)

// trailer returns the markers of a comment's trailer, in order: the run of
// markers that ends the body, where the bot writes them. A marker anywhere
// else (in a message quoted from a file) is not the bot's and is not read.
func trailer(body string) []string {
	var out []string
	for {
		loc := trailerRE.FindStringIndex(body)
		if loc == nil {
			break
		}
		out = append(out, strings.TrimSpace(body[loc[0]:]))
		body = body[:loc[0]]
	}
	slices.Reverse(out)
	return out
}

// Fingerprints returns the fingerprints of the markers in a comment's
// trailer, in order; none for a comment the bot did not write.
func Fingerprints(body string) []string {
	var out []string
	for _, m := range trailer(body) {
		if sm := markerRE.FindStringSubmatch(m); sm != nil {
			out = append(out, sm[1])
		}
	}
	return out
}

// SuggestionBlock renders text as a GitHub ```suggestion block. The fence is
// longer than the longest run of backticks in text, so text holding ```
// cannot end it early.
func SuggestionBlock(text string) string { return SuggestionBlockWith(text, "suggestion") }

// SuggestionBlockWith renders text in a fenced block whose info string is
// info: "suggestion" for GitHub, "suggestion:-2+0" for GitLab (which
// anchors the block on one line and counts the lines above and below it).
func SuggestionBlockWith(text, info string) string {
	fence := inert.Fence(text)
	text = strings.TrimSuffix(text, "\n")
	var b strings.Builder
	b.WriteString(fence + info + "\n")
	if text != "" {
		b.WriteString(text + "\n")
	}
	b.WriteString(fence)
	return b.String()
}

// CommentBody renders one inline comment for findings (all on the same
// lines): each finding's severity, rule and message, the fix description
// (naming a starting point as one), the suggestion block when sug is not
// nil, and one hidden fingerprint marker per finding. A suggestion with a
// starting-point fix in it says so on the comment's first line: its values
// depend on the app, so it is checked before it is committed.
func CommentBody(fs []checks.Finding, sug *Suggestion) string {
	return CommentBodyWith(fs, sug, "suggestion")
}

// CommentBodyWith is CommentBody with the suggestion block's info string
// chosen by the host (see SuggestionBlockWith).
func CommentBodyWith(fs []checks.Finding, sug *Suggestion, info string) string {
	var b strings.Builder
	if sug != nil && slices.ContainsFunc(fs, func(f checks.Finding) bool { return f.Fixable() && !f.ExactFix() }) {
		b.WriteString(StartingPointLine + "\n\n")
	}
	for i, f := range fs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s **%s** `%s`: %s\n", severityIcon(f.Severity), f.Severity, f.RuleID, inert.Text(f.Message))
		if f.Fix != nil && f.Fix.Description != "" {
			label := "Fix"
			if f.Fix.Kind == checks.StartingPoint {
				label = "Fix (starting point)"
			}
			fmt.Fprintf(&b, "\n%s: %s\n", label, inert.Text(f.Fix.Description))
			if f.Fix.Withheld != "" {
				fmt.Fprintf(&b, "\nWithheld: %s\n", inert.Text(f.Fix.Withheld))
			}
		}
	}
	if sug != nil {
		b.WriteString("\n" + SuggestionBlockWith(sug.Text, info) + "\n")
	}
	b.WriteString("\n")
	for _, f := range fs {
		b.WriteString(FingerprintMarker(f.Fingerprint()) + "\n")
	}
	return b.String()
}

// StartingPointLine opens a comment whose suggestion holds a starting-point
// fix.
const StartingPointLine = "**Starting point:** this suggestion's values or effect depend on the app (sizes, IDs, counts, what the image writes, pods it restarts): check it before you commit it."

func severityIcon(s checks.Severity) string {
	switch s {
	case checks.Error:
		return ":x:"
	case checks.Warning:
		return ":warning:"
	}
	return ":information_source:"
}

// cell is text from the files (a message, a reason) made inert (see
// inert.Text: one line, no mention, reference, HTML, link or marker) for a
// list item or a table cell, its pipes escaped.
func cell(s string) string {
	return strings.ReplaceAll(inert.Text(s), "|", "\\|")
}

// codeCell is a value from the files (a path, a name) as an inline code
// span (see inert.Code) for a list item or a table cell, its pipes escaped.
func codeCell(s string) string {
	return strings.ReplaceAll(inert.Code(s), "|", "\\|")
}

// Title is the one-line result of a review: "2 errors, 1 warning" or
// "No findings".
func Title(fs []checks.Finding) string {
	c := report.Count(fs)
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(c.Errors, "error", "errors")
	add(c.Warnings, "warning", "warnings")
	add(c.Infos, "info", "infos")
	if len(parts) == 0 {
		return "No findings"
	}
	return strings.Join(parts, ", ")
}

// maxSummaryRows is how many findings one list of the summary names.
const maxSummaryRows = 200

// Summary renders the Markdown summary of a review: the counts of new,
// fixed and pre-existing findings, the new ones grouped by file with links
// to their lines (those in threads marked), the fixed ones named, the
// findings ignores the pull request adds silence, the pre-existing ones of
// the changed files folded, the files not checked, and how to configure.
// It stays under MaxSummaryChars: lists that do not fit are counted.
func Summary(r Review, failOn checks.Severity) string {
	var b strings.Builder
	b.WriteString("## prodready\n\n")
	where := "in the files this pull request changes."
	if r.Elsewhere {
		where = "in the files this pull request changes and in other files its changes reach (a policy, a CRD or an object they depend on)."
	}
	fmt.Fprintf(&b, "**%d new** · **%d fixed** · **%d pre-existing** %s",
		len(r.New), len(r.Fixed), len(r.PreExisting), where)
	if !r.BaseChecked {
		b.WriteString(" (No base commit to compare with: every finding counts as new.)")
	}
	b.WriteString("\n\n")
	if failOn <= checks.Error {
		what := "New findings"
		if r.ReportMode != checks.ReportNew && r.ReportMode != "" {
			what = "Reported findings"
		}
		fmt.Fprintf(&b, "%s at or above **%s** fail this check.\n\n", what, failOn)
	}
	inline := map[string]int{}
	for _, c := range r.Comments {
		for _, fp := range c.Fingerprints {
			inline[fp] = c.Line
		}
	}
	link := func(f checks.Finding) string {
		if u := LineURL(r.PR, f.File, f.Line); u != "" {
			return fmt.Sprintf("[line %d](%s)", f.Line, u)
		}
		return fmt.Sprintf("line %d", f.Line)
	}
	list := func(fs []checks.Finding, row func(checks.Finding) string) {
		for i, f := range fs {
			if i == maxSummaryRows || b.Len() > MaxSummaryChars-8000 {
				fmt.Fprintf(&b, "- …and %d more (`prodready check` lists them all).\n", len(fs)-i)
				return
			}
			b.WriteString(row(f))
		}
	}
	reported := r.Findings
	if len(reported) == 0 {
		b.WriteString("No new findings. :white_check_mark:\n\n")
	} else {
		title := "New in this pull request"
		if r.ReportMode == checks.ReportTouched || r.ReportMode == checks.ReportAll {
			title = "Reported (review.report: " + r.ReportMode + ")"
		}
		fmt.Fprintf(&b, "### %s\n\n", title)
		file := ""
		list(reported, func(f checks.Finding) string {
			var row strings.Builder
			if f.File != file {
				file = f.File
				fmt.Fprintf(&row, "\n**%s**\n\n", codeCell(f.File))
			}
			mark := ""
			if _, ok := inline[f.Fingerprint()]; ok {
				mark = " :speech_balloon:"
			}
			fmt.Fprintf(&row, "- %s **%s** `%s` %s%s: %s\n", severityIcon(f.Severity), f.Severity, f.RuleID, link(f), mark, cell(f.Message))
			return row.String()
		})
		b.WriteString("\n")
	}
	if len(r.Beyond) > 0 {
		fmt.Fprintf(&b, "%s past the limit of inline threads (`review.maxComments`) are listed above without :speech_balloon:.\n\n", plural.Count(len(r.Beyond), "finding", "findings"))
	}
	if len(r.Fixed) > 0 {
		b.WriteString("### Fixed\n\n")
		list(r.Fixed, func(f checks.Finding) string {
			at := fmt.Sprintf("line %d at base", f.Line)
			if u := lineURLAt(r.PR, r.PR.BaseSHA, f.File, f.Line); u != "" && r.PR.BaseSHA != "" {
				at = fmt.Sprintf("[line %d](%s) at base", f.Line, u)
			}
			return fmt.Sprintf("- `%s` on %s (%s %s)\n", f.RuleID, objectName(f), codeCell(f.File), at)
		})
		b.WriteString("\n")
	}
	if len(r.IgnoredByPR) > 0 {
		counted := 0
		for _, ig := range r.IgnoredByPR {
			if !ig.Honoured {
				counted++
			}
		}
		b.WriteString("### Ignored by this pull request\n\n")
		switch {
		case counted == len(r.IgnoredByPR):
			b.WriteString("These findings are counted, as if their ignores were not there: an ignore a pull request adds does not silence its own review unless `.prodready.yaml` at base says `review.allowIgnoresInPR: true`.\n\n")
		case counted == 0:
			b.WriteString("These findings are silenced: `.prodready.yaml` at base says `review.allowIgnoresInPR: true`.\n\n")
		}
		for i, ig := range r.IgnoredByPR {
			if i == maxSummaryRows {
				fmt.Fprintf(&b, "- …and %d more.\n", len(r.IgnoredByPR)-i)
				break
			}
			at := ig.Finding
			at.File, at.Line = ig.File, ig.Line
			where := "an ignore this pull request adds"
			if !ig.Added {
				where = "an ignore the base has, which did not silence it there"
			}
			state := "silenced (`review.allowIgnoresInPR: true` at base)"
			if !ig.Honoured {
				state = "counted because " + where + " and `review.allowIgnoresInPR` is not true at base"
			}
			fmt.Fprintf(&b, "- `%s` on %s, ignored by this pull request: %s (%s %s), %s\n", ig.Finding.RuleID, objectName(ig.Finding), codeCell(ig.By), codeCell(ig.File), link(at), state)
		}
		b.WriteString("\n")
	}
	if len(r.PreExisting) > 0 && r.ReportMode != checks.ReportTouched && r.ReportMode != checks.ReportAll {
		fmt.Fprintf(&b, "<details><summary>%s already at base in the changed files (not commented)</summary>\n\n", plural.Count(len(r.PreExisting), "finding", "findings"))
		list(r.PreExisting, func(f checks.Finding) string {
			return fmt.Sprintf("- %s `%s` %s %s: %s\n", f.Severity, f.RuleID, codeCell(f.File), link(f), cell(f.Message))
		})
		b.WriteString("\n</details>\n\n")
	}
	writeNotChecked(&b, r.NotChecked)
	b.WriteString(`<details><summary>Configure or ignore</summary>

Configure prodready with ` + "`.prodready.yaml`" + ` at the root of the repository; it is read
from the **base** branch, so a pull request cannot switch off its own checks:

` + "```yaml" + `
failOn: error            # info, warning, error or none
exclude: ["charts/**"]   # paths not checked
rules:
  some-rule-id: false    # switch a rule off
  other-rule-id: {severity: warning}
review:
  drafts: false          # review draft pull requests too
  report: new            # new, touched (also what the changed files had) or all
  inline: warning        # lowest severity commented inline
  maxComments: 25        # inline threads per review
  allowIgnoresInPR: false # true: ignores a pull request adds silence its findings
` + "```" + `

To ignore one finding, add ` + "`# prodready:ignore rule-id reason`" + ` on its line or the line above
it; to ignore a rule for a whole object, annotate it with ` + "`prodready.dev/ignore: rule-id`" + `.
</details>
`)
	return Truncate(b.String(), MaxSummaryChars)
}

// objectName names a finding's object for people: "Deployment shop/web".
func objectName(f checks.Finding) string {
	if f.Object.Kind == "" {
		return codeCell(f.File)
	}
	name := f.Object.Name
	if f.Object.Namespace != "" {
		name = f.Object.Namespace + "/" + name
	}
	return cell(f.Object.Kind) + " " + codeCell(name)
}

// maxNotCheckedRows is how many files not checked a summary names.
const maxNotCheckedRows = 50

// writeNotChecked says how many files were not checked, naming them with
// why.
func writeNotChecked(b *strings.Builder, ns []report.NotChecked) {
	if len(ns) == 0 {
		return
	}
	fmt.Fprintf(b, "**%s not checked:**\n\n| File | Why |\n|---|---|\n", plural.Count(len(ns), "file", "files"))
	for i, n := range ns {
		if i == maxNotCheckedRows {
			fmt.Fprintf(b, "\n…and %d more.\n", len(ns)-i)
			break
		}
		fmt.Fprintf(b, "| %s | %s |\n", codeCell(n.Path), cell(n.Reason))
	}
	b.WriteString("\n")
}

// Truncate cuts s to at most n characters (runes), ending with a note when
// it had to cut. It cuts at the end of a line when the kept part has one:
// a code span that quotes a value is on one line, so cutting between lines
// never leaves one open, which would show the value as Markdown.
func Truncate(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	const note = "\n\n…(truncated)"
	r := []rune(s)
	kept := string(r[:max(n-len([]rune(note)), 0)])
	if i := strings.LastIndexByte(kept, '\n'); i > 0 {
		kept = kept[:i]
	}
	return kept + note
}
