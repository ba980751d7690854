package catalog_test

import (
	"net/url"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
)

// TestEveryRuleHasRef checks that every rule cites its upstream
// documentation as an absolute https URL.
func TestEveryRuleHasRef(t *testing.T) {
	rules := catalog.Default().Rules()
	if len(rules) == 0 {
		t.Fatal("the catalog has no rules")
	}
	for _, r := range rules {
		u, err := url.Parse(r.Ref)
		if err != nil || u.Scheme != "https" || u.Host == "" || !u.IsAbs() {
			t.Errorf("%s: Ref %q is not an absolute https URL", r.ID, r.Ref)
		}
	}
}
