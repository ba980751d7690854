package report

import (
	"fmt"
	"io"

	"github.com/prodready/prodready/checks"
)

type jsonSummary struct {
	Files   int `json:"files"`
	Objects int `json:"objects"`
	Counts
	// NotChecked are the files read but not checked, with why.
	NotChecked []NotChecked `json:"notChecked,omitempty"`
	// Exempted are the findings an exception of the repository exempts.
	Exempted []ExemptedEntry `json:"exempted,omitempty"`
}

// ExemptedEntry is a finding an exception of the repository exempts (a
// Kyverno PolicyException), as the JSON summary lists it: not a finding.
type ExemptedEntry struct {
	Finding checks.Finding `json:"finding"`
	// By names the exception, Exception is where it is written (file:line).
	By        string `json:"by"`
	Exception string `json:"exception"`
}

// exemptedOf lists res's exempted findings for the JSON summary.
func exemptedOf(res *checks.Result) []ExemptedEntry {
	var out []ExemptedEntry
	for _, e := range res.Exempted {
		out = append(out, ExemptedEntry{Finding: e.Finding, By: e.By, Exception: exceptionAt(e)})
	}
	return out
}

// exceptionAt is where an exception is written: "file:line".
func exceptionAt(e checks.Exempted) string {
	return fmt.Sprintf("%s:%d", e.Exception.File, e.Exception.Line)
}

// JSON writes findings and a summary as one JSON object:
// {"findings": [...], "summary": {...}}, indented as json.MarshalIndent
// indents it. Findings are encoded in chunks (jsonArray), so a large
// report is never held whole in memory.
func JSON(w io.Writer, res *checks.Result) error { return Write(w, "json", res, "") }
