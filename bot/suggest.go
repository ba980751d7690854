package bot

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/fix"
)

// SuggestFixes turns the fixes of one file's findings into suggestions with
// package fix: the smallest whole-line replacements, fixes of overlapping
// lines merged. Fixes that do not apply are left out (their findings are
// still reported, without a suggestion).
func SuggestFixes(_ string, src []byte, fs []checks.Finding) ([]Suggestion, error) {
	sugs, _ := fix.Suggest(src, fs)
	out := make([]Suggestion, 0, len(sugs))
	for _, s := range sugs {
		out = append(out, Suggestion{StartLine: s.StartLine, EndLine: s.EndLine, Text: s.Text, Findings: s.Findings})
	}
	return out, nil
}
