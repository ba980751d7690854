package cli

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/fixtures"
)

// writeRuleDetail writes what `prodready rules ID…` shows of each rule:
// its reference entry, then an example from its fixtures (the first
// object it reports there) and the finding with its fix, as check -o wide
// prints them.
func writeRuleDetail(w io.Writer, ids []string) error {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString("\n")
		}
		if err := report.RuleReference(&b, id); err != nil {
			return err
		}
		example, finding, ok := ruleExample(id)
		if !ok {
			b.WriteString("\nExample: none (its findings come from reading the files or rendering the charts and overlays, not from one object; see its reference)\n")
			continue
		}
		fmt.Fprintf(&b, "\nExample (%s):\n\n", example.name)
		for line := range strings.SplitSeq(strings.TrimRight(example.text, "\n"), "\n") {
			b.WriteString("    " + line + "\n")
		}
		b.WriteString("\nprodready check -o wide reports:\n\n")
		report.WriteWide(&b, []checks.Finding{finding})
		if finding.Fix == nil {
			b.WriteString("(no automatic fix: the message says what to change)\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wantComment is a fixture's mark of a line a rule must report.
var wantComment = regexp.MustCompile(`\s*# want: [a-z0-9, -]+$`)

// example is one YAML document of a rule's fixtures.
type example struct{ name, text string }

// ruleExample is the first document of the rule's fixtures (by file name)
// that the rule reports, without its `# want:` marks, and the finding
// (its line counted in the document).
func ruleExample(id string) (example, checks.Finding, bool) {
	dir := path.Join("rules", id)
	entries, err := fs.ReadDir(fixtures.Rules, dir)
	if err != nil {
		return example{}, checks.Finding{}, false
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	for _, name := range names {
		data, err := fs.ReadFile(fixtures.Rules, path.Join(dir, name))
		if err != nil {
			continue
		}
		cfg := checks.DefaultConfig(catalog.Default())
		if cfg.SetEnabled(id, true) != nil {
			return example{}, checks.Finding{}, false
		}
		file := path.Join("fixtures", dir, name)
		res := checks.Run([]checks.Input{{Path: file, Data: data}}, cfg, checks.Options{})
		for _, f := range res.Findings {
			if f.RuleID != id {
				continue
			}
			text, first := documentAt(string(data), f.Line)
			lines := strings.Split(text, "\n")
			for i := range lines {
				lines[i] = wantComment.ReplaceAllString(lines[i], "")
			}
			f.Line -= first - 1
			if f.EndLine > 0 {
				f.EndLine -= first - 1
			}
			f.File = "example.yaml"
			return example{name: file, text: strings.Join(lines, "\n")}, f, true
		}
	}
	return example{}, checks.Finding{}, false
}

// maxExampleLines bounds an example: beyond it, the documents before the
// one reported are left out.
const maxExampleLines = 60

// documentAt is the text of the documents of text up to and including
// the one that holds line (1-based), or only that one when they are
// longer than maxExampleLines (a rule that needs the Service beside a
// Deployment finds it in the documents before it), and the line it
// starts on.
func documentAt(text string, line int) (string, int) {
	lines := strings.Split(text, "\n")
	start, end := 0, len(lines)
	for i := range lines {
		if strings.HasPrefix(lines[i], "---") {
			if i+1 >= line {
				end = i
				break
			}
			start = i + 1
		}
	}
	if end <= maxExampleLines {
		return strings.TrimRight(strings.Join(lines[:end], "\n"), "\n"), 1
	}
	return strings.Join(lines[start:end], "\n"), start + 1
}
