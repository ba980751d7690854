package bot

import (
	"strings"

	"github.com/prodready/prodready/checks"
)

// credentialRules are the rules whose finding points at a line holding a
// credential's value (the rules themselves never echo it).
var credentialRules = map[string]bool{
	"sensitive-env-literal":    true,
	"configmap-sensitive-data": true,
}

// credentialLines returns the text of the lines of src that findings of
// credentialRules point at.
func credentialLines(src []byte, fs []checks.Finding) []string {
	var lines []string
	var all []string
	for _, f := range fs {
		if !credentialRules[f.RuleID] || f.Line < 1 {
			continue
		}
		if all == nil {
			all = strings.Split(string(src), "\n")
		}
		if f.Line <= len(all) {
			if l := strings.TrimSpace(all[f.Line-1]); l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// repeatsCredential reports whether a suggestion's text would quote one of
// the credential lines: a suggestion block repeats the lines it keeps, and
// a bot comment must not copy a credential into the pull request's
// conversation (mails, notifications, a thread that outlives the push that
// removes it). Such a fix is described, not suggested.
func repeatsCredential(sugs []Suggestion, lines []string) bool {
	for _, s := range sugs {
		for _, l := range lines {
			if strings.Contains(s.Text, l) {
				return true
			}
		}
	}
	return false
}
