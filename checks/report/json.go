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
// {"findings": [...], "summary": {...}}. Findings are encoded one at a time
// into a buffered writer, so a large report is never held whole in memory.
func JSON(w io.Writer, res *checks.Result) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("{\n  \"findings\": [")
	for i, f := range res.Findings {
		if i > 0 {
			bw.WriteString(",")
		}
		b, err := json.MarshalIndent(f, "    ", "  ")
		if err != nil {
			return err
		}
		bw.WriteString("\n    ")
		bw.Write(b)
	}
	if len(res.Findings) > 0 {
		bw.WriteString("\n  ")
	}
	summary, err := json.MarshalIndent(jsonSummary{Files: len(res.Files), Objects: res.Objects, Counts: Count(res.Findings)}, "  ", "  ")
	if err != nil {
		return err
	}
	bw.WriteString("],\n  \"summary\": ")
	bw.Write(summary)
	bw.WriteString("\n}\n")
	return bw.Flush()
}
