package report

import (
	"io"

	"github.com/prodready/prodready/checks"
)

type jsonSummary struct {
	Files   int `json:"files"`
	Objects int `json:"objects"`
	Counts
	// NotChecked are the files read but not checked, with why.
	NotChecked []NotChecked `json:"notChecked,omitempty"`
}

// JSON writes findings and a summary as one JSON object:
// {"findings": [...], "summary": {...}}, indented as json.MarshalIndent
// indents it. Findings are encoded in chunks (jsonArray), so a large
// report is never held whole in memory.
func JSON(w io.Writer, res *checks.Result) error { return Write(w, "json", res, "") }
