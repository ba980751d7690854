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
		Fingerprint: fileFingerprint(f),
		Severity:    codeQualitySeverity(f.Severity),
		Location:    codeQualityLocation{Path: f.File, Lines: codeQualityLines{Begin: f.Line, End: f.EndLine}},
	}
}

// fileFingerprint is a finding's fingerprint within its file: the
// finding's identity (checks.Finding.Fingerprint, which no file is part
// of, so that the bot's threads follow an object that moves) with the file
// it is in, so that a report of a whole repository, whose objects of the
// same name in two folders (two overlays) share identities, names each
// finding apart. It is what Code Quality and SARIF compare between runs.
func fileFingerprint(f checks.Finding) string {
	sum := sha256.Sum256([]byte(f.Fingerprint() + "\x00" + f.File))
	return hex.EncodeToString(sum[:8])
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
