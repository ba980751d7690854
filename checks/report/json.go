package report

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/prodready/prodready/checks"
)

type jsonSummary struct {
	Files   int `json:"files"`
	Objects int `json:"objects"`
	Counts
}

// JSON writes findings and a summary as one JSON object:
// {"findings": [...], "summary": {...}}, indented as json.MarshalIndent
// indents it. Findings are encoded in chunks (writeJSONArray), so a large
// report is never held whole in memory.
func JSON(w io.Writer, res *checks.Result) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("{\n  \"findings\": ")
	if err := writeJSONArray(bw, len(res.Findings), 1, func(i int) any { return res.Findings[i] }); err != nil {
		return err
	}
	summary, err := json.MarshalIndent(jsonSummary{Files: len(res.Files), Objects: res.Objects, Counts: Count(res.Findings)}, jsonIndent, jsonIndent)
	if err != nil {
		return err
	}
	bw.WriteString(",\n  \"summary\": ")
	bw.Write(summary)
	bw.WriteString("\n}\n")
	return bw.Flush()
}
