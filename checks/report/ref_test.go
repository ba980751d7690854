package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/report"
)

// TestSARIFRulesCarryHelpURI checks that every SARIF rule descriptor's
// helpUri is its rule's Ref.
func TestSARIFRulesCarryHelpURI(t *testing.T) {
	var b bytes.Buffer
	if err := report.SARIF(&b, result(t), "test"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("not a SARIF log with one run (%v): %s", err, b.String())
	}
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != len(catalog.Default().Rules()) {
		t.Fatalf("%d SARIF rules, the catalog has %d", len(rules), len(catalog.Default().Rules()))
	}
	for _, r := range rules {
		want := catalog.Default().Lookup(r.ID).Ref
		if r.HelpURI == "" || r.HelpURI != want {
			t.Errorf("%s: helpUri %q, want its Ref %q", r.ID, r.HelpURI, want)
		}
	}
}

// TestRulesTextShowsRef checks that `prodready rules` prints each rule's
// reference on the line after the rule.
func TestRulesTextShowsRef(t *testing.T) {
	var b bytes.Buffer
	if err := report.RulesText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	for _, r := range catalog.Default().Rules() {
		found := false
		for i, l := range lines {
			if strings.HasPrefix(l, "  "+r.ID+" ") && i+1 < len(lines) {
				found = strings.TrimSpace(lines[i+1]) == "ref: "+r.Ref
				break
			}
		}
		if !found {
			t.Errorf("%s: no line \"ref: %s\" after the rule", r.ID, r.Ref)
		}
	}
}

// TestRulesMarkdownShowsRef checks that each rule's row in docs/rules.md
// links its reference.
func TestRulesMarkdownShowsRef(t *testing.T) {
	md := report.RulesMarkdown()
	for _, r := range catalog.Default().Rules() {
		row := ""
		for _, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(l, "| `"+r.ID+"` |") {
				row = l
				break
			}
		}
		if !strings.HasSuffix(row, "]("+r.Ref+") |") {
			t.Errorf("%s: row does not end with a link to %s: %q", r.ID, r.Ref, row)
		}
	}
}
