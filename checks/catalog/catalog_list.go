package catalog

import (
	"sync"

	"github.com/prodready/prodready/checks"
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

// families lists every group of rules; each lives in its own file(s) of
// this package. A family is a plain function so the whole catalog is one
// readable list.
var families = []func() []*checks.Rule{
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
}

// Default returns every rule prodready has, built once.
func Default() *checks.Catalog { return defaultCatalog() }

var defaultCatalog = sync.OnceValue(func() *checks.Catalog {
	var sections [][]*checks.Rule
	for _, fam := range families {
		sections = append(sections, fam())
	}
	return checks.NewCatalog(sections...)
})
