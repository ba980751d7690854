package report

import (
	"encoding/json"
	"io"

	"github.com/prodready/prodready/checks"
)

type jsonReport struct {
	Findings []checks.Finding `json:"findings"`
	Summary  jsonSummary      `json:"summary"`
}

type jsonSummary struct {
	Files   int `json:"files"`
	Objects int `json:"objects"`
	Counts
}

// JSON writes findings and a summary as one JSON object.
func JSON(w io.Writer, res *checks.Result) error {
	r := jsonReport{Findings: res.Findings, Summary: jsonSummary{Files: len(res.Files), Objects: res.Objects, Counts: Count(res.Findings)}}
	if r.Findings == nil {
		r.Findings = []checks.Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
