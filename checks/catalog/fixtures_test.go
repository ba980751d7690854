package catalog_test

import (
	"os"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestInputRuleFixtures checks the parser's own rules (yaml-invalid,
// schema-invalid) against their fixture folders; each section's package
// checks its own rules the same way. render-failed,
// kustomize-patch-unmatched and kustomize-replacement-unmatched need a
// renderer: their fixtures are checked in checks/rendered.
func TestInputRuleFixtures(t *testing.T) {
	var parser []*checks.Rule
	for _, r := range checks.InputRules() {
		if r.ID != checks.RenderFailed && r.ID != checks.PatchUnmatched && r.ID != checks.ReplacementUnmatched {
			parser = append(parser, r)
		}
	}
	checkstest.Run(t, catalog.Default(), parser)
}

// TestEveryFixtureFolderHasItsRule fails on a fixture folder named for no
// rule of the catalog (a rule renamed or removed, its fixture left behind).
func TestEveryFixtureFolderHasItsRule(t *testing.T) {
	dirs, err := os.ReadDir(checkstest.RulesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < len(catalog.Default().Rules()) {
		t.Errorf("%d fixture folders for %d rules", len(dirs), len(catalog.Default().Rules()))
	}
	for _, d := range dirs {
		if d.IsDir() && catalog.Default().Lookup(d.Name()) == nil {
			t.Errorf("fixtures/rules/%s names no rule of the catalog", d.Name())
		}
	}
}

// TestEverySectionIsListed holds the catalog to its sections: every rule
// has a section, and each section's rules come from one package's list.
func TestEverySectionIsListed(t *testing.T) {
	sections := map[string]bool{}
	for _, r := range catalog.Default().Rules() {
		if r.Section == "" {
			t.Errorf("rule %s has no section", r.ID)
		}
		sections[r.Section] = true
	}
	if len(sections) != 12 {
		t.Errorf("%d sections, want the input section and the 11 of the catalog: %v", len(sections), sections)
	}
}
