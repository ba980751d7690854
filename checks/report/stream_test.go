package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/manifest"

	"github.com/prodready/prodready/checks"
)

// TestStreamMatchesWrite checks that a report streamed file by file, the
// way the check command writes it (with files that have no findings in
// between), is byte for byte the report Write gives for all the findings
// at once, in every format.
func TestStreamMatchesWrite(t *testing.T) {
	inputs, err := checks.Load([]string{filepath.Join("..", "..", "fixtures", "rules")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{})
	var batches [][]checks.Finding
	for start := 0; start < len(res.Findings); {
		end := start + 1
		for end < len(res.Findings) && res.Findings[end].File == res.Findings[start].File {
			end++
		}
		batches = append(batches, res.Findings[start:end], nil)
		start = end
	}
	if len(batches) < 20 {
		t.Fatalf("only %d files with findings: the comparison would prove little", len(batches)/2)
	}
	for _, format := range Formats {
		var whole, streamed bytes.Buffer
		if err := Write(&whole, format, res, "test"); err != nil {
			t.Fatal(err)
		}
		s, err := NewStream(&streamed, format, Options{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range batches {
			if err := s.Add(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(res); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
			i := 0
			for i < streamed.Len() && i < whole.Len() && streamed.Bytes()[i] == whole.Bytes()[i] {
				i++
			}
			t.Errorf("%s: streamed report differs from the whole one at byte %d of %d", format, i, whole.Len())
		}
	}
}

// TestNewStreamRefusesUnknownFormat checks that an unknown format is an
// error before anything is written.
func TestNewStreamRefusesUnknownFormat(t *testing.T) {
	var b bytes.Buffer
	if _, err := NewStream(&b, "xml", Options{}); err == nil || b.Len() != 0 {
		t.Fatalf("NewStream(xml) = %v, wrote %q; want an error and nothing written", err, b.String())
	}
}

// TestEveryFormatNamesTheFilesNotChecked holds every format to naming each
// file a run read but did not check, with its reason: never a silent pass.
func TestEveryFormatNamesTheFilesNotChecked(t *testing.T) {
	res := &checks.Result{Files: []*manifest.File{
		{Path: "chart/templates/cm.yaml", Skipped: "Helm chart template: not YAML until rendered"},
		{Path: "app/pod.yaml"},
	}}
	for _, format := range Formats {
		var b bytes.Buffer
		if err := Write(&b, format, res, "test"); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "chart/templates/cm.yaml") || !strings.Contains(out, "not YAML until rendered") {
			t.Errorf("%s does not name the file not checked and why:\n%s", format, out)
		}
		if strings.Contains(out, "app/pod.yaml") {
			t.Errorf("%s names a file that was checked as not checked:\n%s", format, out)
		}
	}
}

// TestStepSummaryHoldsOnlyWhatFits checks the github format's job summary
// on more findings than GitHub shows: the stream holds only the rows that
// fit (not every finding until the end), and the summary lists them and
// counts every one left out.
func TestStepSummaryHoldsOnlyWhatFits(t *testing.T) {
	const total = 20_000
	fs := make([]checks.Finding, total)
	for i := range fs {
		fs[i] = checks.Finding{RuleID: "image-tag-mutable", Severity: checks.Warning, File: "apps/app.yaml", Line: i + 1, Column: 1,
			Message: "container web runs registry.example.com/shop/web:1.4, a tag that can be moved to another image: pin it by digest " + strings.Repeat("x", 40)}
	}
	var summary, out bytes.Buffer
	s, err := NewStream(&out, "github", Options{StepSummary: &summary})
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < total; start += 100 {
		if err := s.Add(fs[start : start+100]); err != nil {
			t.Fatal(err)
		}
	}
	held := len(s.github.summary.rows)
	if err := s.Close(&checks.Result{}); err != nil {
		t.Fatal(err)
	}
	rows := strings.Count(summary.String(), "\n| warning |")
	var more int
	if _, err := fmt.Sscanf(summary.String()[strings.Index(summary.String(), "…and ")+len("…and "):], "%d more findings", &more); err != nil {
		t.Fatalf("no count of the findings left out: %v\n%s", err, summary.String()[summary.Len()-300:])
	}
	if rows+more != total || summary.Len() > 1<<20 { // GitHub's limit
		t.Errorf("%d rows and %d more in %d bytes; want %d in all, within 1 MiB", rows, more, summary.Len(), total)
	}
	if held > rows+1 {
		t.Errorf("the stream held %d rows for a summary that shows %d", held, rows)
	}
}
