package checks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
)

// fixturesDir holds one folder per rule: fixtures/rules/<rule-id>/.
const fixturesDir = "../fixtures/rules"

// wantRE finds expectation markers: `# want: rule-a, rule-b` at the end of
// the line a finding must point at.
var wantRE = regexp.MustCompile(`#\s*want:\s*([a-z0-9, -]+)`)

// TestRuleFixtures runs every rule over its fixture folder (all files of the
// folder together, so cross-file rules see each other's objects, with the
// folder's .prodready.yaml when present) and compares the findings with the
// markers, for the folder's rule and every rule a marker names.
func TestRuleFixtures(t *testing.T) {
	dirs, err := os.ReadDir(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			dir := filepath.Join(fixturesDir, d.Name())
			res, want := runFixture(t, dir)
			ids := map[string]bool{d.Name(): true}
			for _, w := range want {
				ids[w.rule] = true
			}
			var got []marker
			for _, f := range res.Findings {
				if ids[f.RuleID] {
					got = append(got, marker{file: filepath.Base(f.File), line: f.Line, rule: f.RuleID})
				}
			}
			sortMarkers(got)
			sortMarkers(want)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(marker{})); diff != "" {
				t.Errorf("findings differ from the # want: markers (-want +got):\n%s\nall findings:\n%s", diff, describe(res.Findings))
			}
		})
	}
}

// TestEveryRuleHasFixtureAndDoc fails when a rule has no fixture folder with
// a marker for it, or no one-line why.
func TestEveryRuleHasFixtureAndDoc(t *testing.T) {
	for _, r := range catalog.Default().Rules() {
		if r.Why == "" {
			t.Errorf("rule %s has no Why", r.ID)
		}
		if r.Section == "" {
			t.Errorf("rule %s has no Section", r.ID)
		}
		dir := filepath.Join(fixturesDir, r.ID)
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("rule %s has no fixture folder %s", r.ID, dir)
			continue
		}
		_, want := runFixture(t, dir)
		found := false
		for _, w := range want {
			found = found || w.rule == r.ID
		}
		if !found {
			t.Errorf("fixture folder %s has no `# want: %s` marker", dir, r.ID)
		}
	}
}

type marker struct {
	file string
	line int
	rule string
}

func (m marker) String() string { return fmt.Sprintf("%s:%d %s", m.file, m.line, m.rule) }

func sortMarkers(ms []marker) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].String() < ms[j].String() })
}

// runFixture checks every YAML file of dir and returns the result and the
// markers written in the files.
func runFixture(t *testing.T, dir string) (*checks.Result, []marker) {
	t.Helper()
	cfg, err := checks.LoadConfig(filepath.Join(dir, checks.ConfigFileName), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := checks.Load([]string{dir}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []marker
	for _, in := range inputs {
		for i, line := range strings.Split(string(in.Data), "\n") {
			m := wantRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			for _, id := range strings.Split(m[1], ",") {
				if id = strings.TrimSpace(id); id != "" {
					want = append(want, marker{file: filepath.Base(in.Path), line: i + 1, rule: id})
				}
			}
		}
	}
	return checks.Run(inputs, cfg, checks.Options{}), want
}

func describe(fs []checks.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s:%d %s %s\n", filepath.Base(f.File), f.Line, f.RuleID, f.Message)
	}
	return b.String()
}
