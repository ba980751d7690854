// Package testconfig builds .prodready.yaml texts for tests of the
// reviewers and hosts.
package testconfig

import (
	"strings"

	"github.com/prodready/prodready/checks/catalog"
)

// OnlyRule returns a config that switches off every rule but id and the
// always-on ones, which cannot be (failOn stays at its default, error), so
// a test can state the exact review while the rule catalog grows.
func OnlyRule(id string) string { return OnlyRules(id) }

// OnlyRules is OnlyRule for several rules.
func OnlyRules(ids ...string) string {
	on := map[string]bool{}
	for _, id := range ids {
		on[id] = true
	}
	var b strings.Builder
	b.WriteString("failOn: error\nrules:\n")
	for _, r := range catalog.Default().Rules() {
		if !on[r.ID] && !r.AlwaysOn {
			b.WriteString("  " + r.ID + ": false\n")
		}
	}
	return b.String()
}
