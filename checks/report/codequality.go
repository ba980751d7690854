package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"

	"github.com/prodready/prodready/checks"
)

type codeQualityIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"`
	Location    codeQualityLocation `json:"location"`
}

type codeQualityLocation struct {
	Path  string           `json:"path"`
	Lines codeQualityLines `json:"lines"`
}

type codeQualityLines struct {
	Begin int `json:"begin"`
	End   int `json:"end,omitempty"`
}

// CodeQuality writes the GitLab Code Quality report (a JSON array), which
// GitLab shows in the merge request widget.
func CodeQuality(w io.Writer, res *checks.Result) error {
	return Write(w, "codequality", res, "")
}

// codeQualityIssueOf is f as a Code Quality issue.
func codeQualityIssueOf(f checks.Finding) codeQualityIssue {
	return codeQualityIssue{
		Description: f.Message,
		CheckName:   f.RuleID,
		Fingerprint: f.Fingerprint(),
		Severity:    codeQualitySeverity(f.Severity),
		Location:    codeQualityLocation{Path: f.File, Lines: codeQualityLines{Begin: f.Line, End: f.EndLine}},
	}
}

func codeQualitySeverity(s checks.Severity) string {
	switch s {
	case checks.Error:
		return "critical"
	case checks.Warning:
		return "major"
	}
	return "info"
}

// codeQualityNotChecked is a file that was not checked, as an info issue:
// the report has no other place to say so in the merge request.
func codeQualityNotChecked(n NotChecked) codeQualityIssue {
	sum := sha256.Sum256([]byte("not-checked\x00" + n.Path))
	return codeQualityIssue{
		Description: "not checked: " + n.Reason,
		CheckName:   "prodready/not-checked",
		Fingerprint: hex.EncodeToString(sum[:16]),
		Severity:    "info",
		Location:    codeQualityLocation{Path: n.Path, Lines: codeQualityLines{Begin: 1}},
	}
}
