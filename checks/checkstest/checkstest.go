// Package checkstest runs rules over the repository's fixture folders and
// the shared corpus in tests, in the spirit of
// golang.org/x/tools/go/analysis/analysistest: a section's fixture test is
//
//	func TestFixtures(t *testing.T) { checkstest.Run(t, catalog.Default(), health.Rules()) }
//
// A fixture folder fixtures/rules/<rule-id>/ holds YAML files whose
// expected findings are marked on the line they must point at with
// `# want: rule-a, rule-b`. All files of a folder are checked together (so
// cross-file rules see each other's objects), with the folder's
// .prodready.yaml when it has one.
package checkstest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/checks"
)

// Root returns the repository's root: the nearest folder at or above the
// test's working folder that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("checkstest: no go.mod above the test's folder")
		}
		dir = up
	}
}

// RulesDir returns fixtures/rules of the repository: one folder per rule.
func RulesDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(Root(t), "fixtures", "rules")
}

// Shared returns the folder sub of the shared test data (corpus, peer
// fixtures, payloads) that sits beside the repository in development and
// CI, not in a user's clone. When it is absent the test is skipped with one
// line that says so.
func Shared(t testing.TB, sub string) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(Root(t)), "shared", sub)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("../shared/%s not present (it sits beside the repository in development and CI only): %v", sub, err)
	}
	return p
}

// Marker is one expected (or actual) finding: the base name of its file,
// its 1-based line, and its rule.
type Marker struct {
	File string
	Line int
	Rule string
}

func (m Marker) String() string { return fmt.Sprintf("%s:%d %s", m.File, m.Line, m.Rule) }

// wantRE finds expectation markers at the end of a line.
var wantRE = regexp.MustCompile(`#\s*want:\s*([a-z0-9, /-]+)`)

// Load reads the config of folder dir (its .prodready.yaml, or the
// defaults) for the rules of catalog, and lists dir's YAML files with
// their content.
func Load(t testing.TB, catalog *checks.Catalog, dir string) (*checks.Config, []checks.Input) {
	t.Helper()
	cfg, err := checks.LoadConfig(filepath.Join(dir, checks.ConfigFileName), catalog)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := checks.Load([]string{dir}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, inputs
}

// Fixture checks every YAML file of dir with the rules of catalog and the
// folder's config, and returns the result and the markers in the files.
func Fixture(t testing.TB, catalog *checks.Catalog, dir string) (*checks.Result, []Marker) {
	t.Helper()
	cfg, inputs := Load(t, catalog, dir)
	var want []Marker
	for _, in := range inputs {
		for i, line := range strings.Split(string(in.Data), "\n") {
			m := wantRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			for _, id := range strings.Split(m[1], ",") {
				if id = strings.TrimSpace(id); id != "" {
					want = append(want, Marker{File: filepath.Base(in.Path), Line: i + 1, Rule: id})
				}
			}
		}
	}
	return checks.Run(inputs, cfg, checks.Options{}), want
}

// Run checks each rule's fixture folder with every rule of catalog, and
// compares the findings of the folder's rule, and of every rule a marker
// names, with the markers. It also fails when a rule has no folder, no
// marker for itself, no why or no section.
func Run(t *testing.T, catalog *checks.Catalog, rules []*checks.Rule) {
	t.Helper()
	for _, r := range rules {
		t.Run(r.ID, func(t *testing.T) {
			if r.Why == "" {
				t.Errorf("rule %s has no Why", r.ID)
			}
			if r.Section == "" {
				t.Errorf("rule %s has no Section", r.ID)
			}
			dir := filepath.Join(RulesDir(t), r.ID)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("rule %s has no fixture folder %s", r.ID, dir)
			}
			res, want := Fixture(t, catalog, dir)
			ids := map[string]bool{r.ID: true}
			self := false
			for _, w := range want {
				ids[w.Rule] = true
				self = self || w.Rule == r.ID || r.Family && strings.HasPrefix(w.Rule, r.ID+"/")
			}
			if !self {
				t.Errorf("fixture folder %s has no `# want: %s` marker", dir, r.ID)
			}
			var got []Marker
			for _, f := range res.Findings {
				if ids[f.RuleID] || r.Family && strings.HasPrefix(f.RuleID, r.ID+"/") {
					got = append(got, Marker{File: filepath.Base(f.File), Line: f.Line, Rule: f.RuleID})
				}
			}
			sortMarkers(got)
			sortMarkers(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings differ from the # want: markers (-want +got):\n%s\nall findings:\n%s", diff, Describe(res.Findings))
			}
		})
	}
}

func sortMarkers(ms []Marker) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].String() < ms[j].String() })
}

// Describe lists findings one a line, for failure messages.
func Describe(fs []checks.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s:%d %s %s\n", filepath.Base(f.File), f.Line, f.RuleID, f.Message)
	}
	return b.String()
}

// Findings runs catalog over rule's fixture folder and returns that rule's
// findings by "file:line" (the file's base name).
func Findings(t testing.TB, catalog *checks.Catalog, rule string) map[string]checks.Finding {
	t.Helper()
	res, _ := Fixture(t, catalog, filepath.Join(RulesDir(t), rule))
	out := map[string]checks.Finding{}
	for _, f := range res.Findings {
		if f.RuleID == rule {
			out[fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)] = f
		}
	}
	return out
}

// CorpusCase is one object of the corpus on which a rule must not fire
// (Fire false) or must still fire (Fire true, keeping a narrowing honest).
type CorpusCase struct {
	// File is the object's file, relative to the corpus.
	File, Kind, Name, Rule string
	// Container, when set, limits the case to findings naming this
	// container (`container "x"` in the message).
	Container string
	Fire      bool
	// NoFix, with Fire, asserts that the finding offers no fix.
	NoFix bool
	// Why is the reason, shown when the case fails.
	Why string
}

var corpus struct {
	once    sync.Once
	catalog *checks.Catalog
	result  *checks.Result
	err     error
}

// corpusResult checks the whole corpus once per test binary (every rule
// of catalog, the opt-in rules but required-labels-missing included) and
// returns the result, or skips when the corpus is absent.
func corpusResult(t *testing.T, catalog *checks.Catalog) *checks.Result {
	t.Helper()
	dir := Shared(t, "corpus")
	corpus.once.Do(func() {
		corpus.catalog = catalog
		var cfg strings.Builder
		cfg.WriteString("rules:\n")
		for _, r := range catalog.Rules() {
			if r.OptIn && r.ID != "required-labels-missing" {
				cfg.WriteString("  " + r.ID + ": true\n")
			}
		}
		c, err := checks.ParseConfig([]byte(cfg.String()), catalog)
		if err != nil {
			corpus.err = err
			return
		}
		inputs, err := checks.Load([]string{dir}, c, nil)
		if err != nil {
			corpus.err = err
			return
		}
		corpus.result = checks.Run(inputs, c, checks.Options{})
	})
	if corpus.err != nil {
		t.Fatal(corpus.err)
	}
	if corpus.catalog != catalog {
		t.Fatal("checkstest: RunCorpusCases called with two catalogs in one test binary")
	}
	return corpus.result
}

// RunCorpusCases asserts each case against the findings of the whole
// corpus, checked once per test binary. A case whose object is not in the
// corpus any more fails: it would pass without proving anything.
func RunCorpusCases(t *testing.T, catalog *checks.Catalog, cases []CorpusCase) {
	t.Helper()
	res := corpusResult(t, catalog)
	for _, c := range cases {
		if !hasObject(res, c.File, c.Kind, c.Name) {
			t.Errorf("%s %s/%s is not in the corpus any more: update the table", c.File, c.Kind, c.Name)
			continue
		}
		var hits []string
		fixed := ""
		for _, f := range res.Findings {
			if f.RuleID != c.Rule || !strings.HasSuffix(filepath.ToSlash(f.File), "/"+c.File) || f.Object.Kind != c.Kind || f.Object.Name != c.Name {
				continue
			}
			if c.Container != "" && !strings.Contains(f.Message, `container "`+c.Container+`"`) {
				continue
			}
			hits = append(hits, f.Message)
			if f.Fix != nil {
				fixed = f.Fix.Description
			}
		}
		switch {
		case c.Fire && c.NoFix && fixed != "":
			t.Errorf("%s %s/%s: %s offers a fix (%s), but must not (%s)", c.File, c.Kind, c.Name, c.Rule, fixed, c.Why)
		case c.Fire && len(hits) == 0:
			t.Errorf("%s %s/%s: %s no longer fires (%s)", c.File, c.Kind, c.Name, c.Rule, c.Why)
		case !c.Fire && len(hits) > 0:
			t.Errorf("%s %s/%s: false alarm %s (%s): %s", c.File, c.Kind, c.Name, c.Rule, c.Why, hits[0])
		}
	}
}

// hasObject reports whether the checked file file, or the one whose path
// ends in /file, holds an object of kind and name.
func hasObject(res *checks.Result, file, kind, name string) bool {
	for _, f := range res.Files {
		if p := filepath.ToSlash(f.Path); p != file && !strings.HasSuffix(p, "/"+file) {
			continue
		}
		for _, o := range f.Objects {
			if o.Kind == kind && o.Name == name {
				return true
			}
		}
	}
	return false
}

// NoAlarm is an object of the corpus on which a rule must not fire (or,
// with NoFix, must not offer a fix): a false alarm once, narrowed since.
type NoAlarm struct {
	// Repo is the corpus folder checked as one repository; File is
	// relative to it.
	Repo, File, Kind, Name, Rule string
	// NoFix lets the rule fire, but not with a fix.
	NoFix bool
	// Reason is why it must not fire, shown when the case fails.
	Reason string
}

var repos struct {
	sync.Mutex
	results map[string]*checks.Result // by config text and repository
}

// checkRepo checks one corpus folder as a repository, the way the bot
// checks one repository, once per test binary and config.
func checkRepo(t *testing.T, catalog *checks.Catalog, cfgText, repo string) *checks.Result {
	t.Helper()
	repos.Lock()
	defer repos.Unlock()
	key := cfgText + "\x00" + repo
	if r, ok := repos.results[key]; ok {
		return r
	}
	cfg, err := checks.ParseConfig([]byte(cfgText), catalog)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := checks.Load([]string{filepath.Join(Shared(t, "corpus"), repo)}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := checks.Run(inputs, cfg, checks.Options{})
	if repos.results == nil {
		repos.results = map[string]*checks.Result{}
	}
	repos.results[key] = r
	return r
}

// RunNoAlarms checks each case's corpus folder as a repository, with the
// config text cfgText, and fails where the rule fires on the case's
// object (or offers a fix, for NoFix cases).
func RunNoAlarms(t *testing.T, catalog *checks.Catalog, cfgText string, cases []NoAlarm) {
	t.Helper()
	dir := Shared(t, "corpus")
	for _, tc := range cases {
		t.Run(tc.Rule+"/"+tc.File+"/"+tc.Name, func(t *testing.T) {
			if catalog.Lookup(tc.Rule) == nil {
				t.Fatalf("unknown rule %s", tc.Rule)
			}
			if _, err := os.Stat(filepath.Join(dir, tc.Repo, tc.File)); err != nil {
				t.Fatalf("corpus file missing: %v", err)
			}
			res := checkRepo(t, catalog, cfgText, tc.Repo)
			for _, f := range res.Findings {
				if f.RuleID != tc.Rule || !strings.HasSuffix(filepath.ToSlash(f.File), tc.Repo+"/"+tc.File) || f.Object.Kind != tc.Kind || f.Object.Name != tc.Name {
					continue
				}
				if tc.NoFix && f.Fix == nil {
					continue
				}
				t.Errorf("%s:%d %s fires on %s %s (%s): %s", tc.File, f.Line, tc.Rule, tc.Kind, tc.Name, tc.Reason, f.Message)
			}
		})
	}
}
