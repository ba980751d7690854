package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// TestJSONArrayMatchesMarshalIndent checks jsonArray against
// json.MarshalIndent of the same array nested depth levels deep, for
// lengths around the chunk size (0, 1, a chunk, a chunk and one, many),
// added at once and in batches of every size from 0 to 3 chunks.
func TestJSONArrayMatchesMarshalIndent(t *testing.T) {
	type item struct {
		Name string         `json:"name"`
		N    int            `json:"n"`
		Tags []string       `json:"tags"`
		M    map[string]any `json:"m,omitempty"`
	}
	for _, n := range []int{0, 1, 2, chunkSize, chunkSize + 1, 5*chunkSize + 3} {
		items := make([]item, n)
		for i := range items {
			items[i] = item{Name: fmt.Sprintf("x<%d>\n\"q\"", i), N: i, Tags: []string{"a", "b"}}
			if i%3 == 0 {
				items[i].M = map[string]any{"k": []int{1, 2}, "e": map[string]int{}}
			}
		}
		for depth := 0; depth <= 3; depth++ {
			// The array nested depth levels deep: {"a": {"a": [...]}} for 2.
			var whole any = items
			for range depth {
				whole = map[string]any{"a": whole}
			}
			want, err := json.MarshalIndent(whole, "", jsonIndent)
			if err != nil {
				t.Fatal(err)
			}
			for _, batch := range []int{n, 1, 7, chunkSize, 3 * chunkSize} {
				var b bytes.Buffer
				w := bufio.NewWriter(&b)
				for d := range depth {
					fmt.Fprintf(w, "{\n%s\"a\": ", indentOf(d+1))
				}
				a := jsonArray{depth: depth}
				a.add(w, 0, nil) // an empty batch (a file with no findings) writes nothing
				for from := 0; from < n; from += batch {
					part := items[from:min(n, from+batch)]
					if err := a.add(w, len(part), func(i int) any { return part[i] }); err != nil {
						t.Fatal(err)
					}
					a.add(w, 0, nil)
				}
				a.close(w)
				for d := depth - 1; d >= 0; d-- {
					fmt.Fprintf(w, "\n%s}", indentOf(d))
				}
				w.Flush()
				if !bytes.Equal(b.Bytes(), want) {
					t.Errorf("n=%d depth=%d batch=%d:\n got %q\nwant %q", n, depth, batch, b.Bytes(), want)
				}
			}
		}
	}
}

func indentOf(depth int) string { return strings.Repeat(jsonIndent, depth) }

// TestJSONReportsMatchWholeEncoding checks that the JSON, SARIF and Code
// Quality reports, written in chunks, are byte for byte what encoding the
// whole document with encoding/json gives, on the rule fixtures' findings
// (thousands of them: many chunks) and on none.
func TestJSONReportsMatchWholeEncoding(t *testing.T) {
	inputs, err := checks.Load([]string{filepath.Join("..", "..", "fixtures", "rules")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	full := checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{})
	if len(full.Findings) < 3*chunkSize {
		t.Fatalf("only %d findings: too few to span several chunks", len(full.Findings))
	}
	for _, res := range []*checks.Result{full, {}} {
		var b bytes.Buffer
		if err := JSON(&b, res); err != nil {
			t.Fatal(err)
		}
		doc := struct {
			Findings []checks.Finding `json:"findings"`
			Summary  jsonSummary      `json:"summary"`
		}{res.Findings, jsonSummary{Files: len(res.Files), Objects: res.Kubernetes, Counts: Count(res.Findings), NotChecked: NotCheckedOf(res), Exempted: exemptedOf(res)}}
		if doc.Findings == nil {
			doc.Findings = []checks.Finding{}
		}
		sameAsWhole(t, "json", b.Bytes(), doc)

		b.Reset()
		if err := SARIF(&b, res, "test"); err != nil {
			t.Fatal(err)
		}
		var log sarifLog
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		if len(log.Runs) != 1 || len(log.Runs[0].Results) != len(res.Findings) {
			t.Fatalf("sarif: %d results, want %d", len(log.Runs[0].Results), len(res.Findings))
		}
		sameAsWhole(t, "sarif", b.Bytes(), log)

		b.Reset()
		if err := CodeQuality(&b, res); err != nil {
			t.Fatal(err)
		}
		issues := []codeQualityIssue{}
		if err := json.Unmarshal(b.Bytes(), &issues); err != nil {
			t.Fatal(err)
		}
		if want := len(res.Findings) + len(NotCheckedOf(res)); len(issues) != want {
			t.Fatalf("codequality: %d issues, want %d (a finding each, and a note each for the files not checked)", len(issues), want)
		}
		sameAsWhole(t, "codequality", b.Bytes(), issues)
	}
}

// sameAsWhole checks that got is json.MarshalIndent(v) and a newline.
func sameAsWhole(t *testing.T, name string, got []byte, v any) {
	t.Helper()
	want, err := json.MarshalIndent(v, "", jsonIndent)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s: differs from the whole document's encoding at byte %d of %d:\n got …%q\nwant …%q", name, i, len(want), got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
}
