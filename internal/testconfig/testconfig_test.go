package testconfig

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

func TestOnlyRuleLeavesOneRuleOn(t *testing.T) {
	// The always-on rules stay on: a config cannot switch them off.
	cfg, err := checks.ParseConfig([]byte(OnlyRule("probe-named-port-undeclared")), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range catalog.Default().Rules() {
		if got, want := cfg.Enabled(r), r.ID == "probe-named-port-undeclared" || r.AlwaysOn; got != want {
			t.Errorf("%s enabled = %v, want %v", r.ID, got, want)
		}
	}
}
