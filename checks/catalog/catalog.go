// Package catalog is the explicit list of prodready's rule sections: the
// one place that names every section, in catalog order.
//
// Adding a rule: one rule file in its section's package under
// checks/rules/<section>/, one line in that section's rules.go, one
// fixture folder fixtures/rules/<rule-id>/, and `make docs`.
package catalog

import (
	"sync"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/crdschema"
	"github.com/prodready/prodready/checks/policy"
	"github.com/prodready/prodready/checks/rules/apicluster"
	"github.com/prodready/prodready/checks/rules/configsecrets"
	"github.com/prodready/prodready/checks/rules/faulttolerance"
	"github.com/prodready/prodready/checks/rules/health"
	"github.com/prodready/prodready/checks/rules/kyverno"
	"github.com/prodready/prodready/checks/rules/labels"
	"github.com/prodready/prodready/checks/rules/loggingstate"
	"github.com/prodready/prodready/checks/rules/network"
	"github.com/prodready/prodready/checks/rules/resources"
	"github.com/prodready/prodready/checks/rules/security"
	"github.com/prodready/prodready/checks/rules/shutdown"
)

// sections lists every section's rules, as plain functions so the whole
// catalog is one readable list.
var sections = []func() []*checks.Rule{
	checks.InputRules,
	health.Rules,
	shutdown.Rules,
	faulttolerance.Rules,
	resources.Rules,
	labels.Rules,
	loggingstate.Rules,
	configsecrets.Rules,
	security.Rules,
	network.Rules,
	apicluster.Rules,
	kyverno.Rules,
	crdschema.Rules,
	policy.Rules,
}

// Default returns every rule prodready has, built once.
func Default() *checks.Catalog { return defaultCatalog() }

var defaultCatalog = sync.OnceValue(func() *checks.Catalog {
	var lists [][]*checks.Rule
	for _, section := range sections {
		lists = append(lists, section())
	}
	return checks.NewCatalog(lists...)
})
