package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/render"
)

// corpusVerdictsFile is the table of what `prodready check` reports on the
// shared corpus, rule by rule, with the reason for each count's last change.
const corpusVerdictsFile = "testdata/corpus-verdicts.tsv"

// reasonNeeded marks a row whose count -update changed: the test fails until
// a person writes why in its place.
const reasonNeeded = "REASON NEEDED"

// verdictKey is one row of the table: a rule at one severity.
type verdictKey struct{ rule, severity string }

// verdict is what the corpus gets for one rule at one severity: findings,
// and how many of them carry an exact fix or a starting point.
type verdict struct {
	findings, exact, startingPoint int
}

// verdictRow is a row of the table with its reason.
type verdictRow struct {
	verdict
	reason string
}

// TestCorpusVerdicts runs `prodready check` (charts and overlays rendered,
// as prodready does) over the shared corpus and holds its counts, per
// rule and severity, to testdata/corpus-verdicts.tsv. A rule that starts or
// stops firing, or whose fixes change kind, fails the test until the table
// says why: `go test ./cmd/internal/cli -run TestCorpusVerdicts -update`
// rewrites the counts, keeps the reason of every row that did not change,
// and writes REASON NEEDED (with the old counts) on every row that did.
func TestCorpusVerdicts(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("../shared/corpus not present (it sits beside the repository in development and CI only): %v", err)
	}
	got := corpusVerdicts(t, corpus)
	want, err := readVerdicts(corpusVerdictsFile)
	if err != nil && !(*update && os.IsNotExist(err)) {
		t.Fatal(err)
	}
	if *update {
		if err := writeVerdicts(corpusVerdictsFile, got, want); err != nil {
			t.Fatal(err)
		}
		want, _ = readVerdicts(corpusVerdictsFile)
	}
	for _, k := range sortedKeys(got, want) {
		g, w := got[k], want[k]
		switch {
		case g != w.verdict:
			t.Errorf("%s (%s): the corpus now gets %s, the table says %s; run with -update and write why in the table", k.rule, k.severity, g, w.verdict)
		case strings.Contains(w.reason, reasonNeeded):
			t.Errorf("%s (%s): %s: %s", k.rule, k.severity, corpusVerdictsFile, w.reason)
		}
	}
}

// corpusVerdicts counts the findings of one check run over dir.
func corpusVerdicts(t *testing.T, dir string) map[verdictKey]verdict {
	t.Helper()
	config := filepath.Join(t.TempDir(), ".prodready.yaml")
	if err := os.WriteFile(config, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	p := Program{Name: "prodready", Version: "test", Render: render.InProcess}
	if code := p.Run([]string{"check", "--config", config, "--format", "json", "--fail-on", "none", dir}, nil, &out, &errb); code != ExitOK {
		t.Fatalf("check exited %d: %s", code, errb.String())
	}
	var report struct {
		Findings []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			Fix      *struct {
				Kind string `json:"kind"`
			} `json:"fix"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("check's JSON: %v", err)
	}
	counts := map[verdictKey]verdict{}
	for _, f := range report.Findings {
		k := verdictKey{f.Rule, f.Severity}
		v := counts[k]
		v.findings++
		if f.Fix != nil {
			switch f.Fix.Kind {
			case "exact":
				v.exact++
			case "starting-point":
				v.startingPoint++
			default:
				t.Errorf("%s: fix of unknown kind %q", f.Rule, f.Fix.Kind)
			}
		}
		counts[k] = v
	}
	return counts
}

// String says a verdict in words, for failure messages.
func (v verdict) String() string {
	return fmt.Sprintf("%d findings (%d exact fixes, %d starting points)", v.findings, v.exact, v.startingPoint)
}

// readVerdicts reads the table: rule, severity, findings, exact fixes,
// starting points and reason, tab-separated, after a comment header.
func readVerdicts(path string) (map[verdictKey]verdictRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows := map[verdictKey]verdictRow{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.SplitN(text, "\t", 6)
		if len(cols) != 6 {
			return nil, fmt.Errorf("%s:%d: want 6 tab-separated columns, got %d", path, line, len(cols))
		}
		var n [3]int
		for i := range n {
			if n[i], err = strconv.Atoi(cols[2+i]); err != nil {
				return nil, fmt.Errorf("%s:%d: column %d: %v", path, line, 3+i, err)
			}
		}
		rows[verdictKey{cols[0], cols[1]}] = verdictRow{verdict{n[0], n[1], n[2]}, cols[5]}
	}
	return rows, sc.Err()
}

// writeVerdicts writes the table for got, keeping old's reason for every
// row whose counts did not change.
func writeVerdicts(path string, got map[verdictKey]verdict, old map[verdictKey]verdictRow) error {
	var b strings.Builder
	b.WriteString("# What `prodready check` reports on ../shared/corpus (charts and overlays rendered), by rule and severity.\n")
	b.WriteString("# Written by `go test ./cmd/internal/cli -run TestCorpusVerdicts -update`; the reasons are written by hand.\n")
	b.WriteString("# A row whose counts change gets REASON NEEDED, and the test fails until it says why.\n")
	b.WriteString("# rule\tseverity\tfindings\texact fixes\tstarting points\treason for the last change\n")
	for _, k := range sortedKeys(got, old) {
		g, o := got[k], old[k]
		reason := o.reason
		if g != o.verdict {
			reason = fmt.Sprintf("%s (was %d findings, %d exact, %d starting points)", reasonNeeded, o.findings, o.exact, o.startingPoint)
		}
		if g == (verdict{}) && o.verdict == (verdict{}) {
			continue
		}
		fmt.Fprintf(&b, "%s\t%s\t%d\t%d\t%d\t%s\n", k.rule, k.severity, g.findings, g.exact, g.startingPoint, reason)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// sortedKeys returns the keys of both maps, by rule then severity.
func sortedKeys(got map[verdictKey]verdict, rows map[verdictKey]verdictRow) []verdictKey {
	seen := map[verdictKey]bool{}
	var keys []verdictKey
	for k := range got {
		seen[k] = true
		keys = append(keys, k)
	}
	for k := range rows {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].rule != keys[j].rule {
			return keys[i].rule < keys[j].rule
		}
		return keys[i].severity < keys[j].severity
	})
	return keys
}
