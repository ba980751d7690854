package checks

import "sync"

// families lists every group of rules; each lives in its own file(s) of
// this package. A family is a plain function so the whole catalog is one
// readable list.
var families = []func() []*Rule{
	inputRules,
	healthRules,
	shutdownRules,
	faultToleranceRules,
	resourceRules,
	labelRules,
	loggingStateRules,
	configSecretRules,
	securityContextRules,
	networkAccessRules,
	apiClusterRules,
	admissionKyvernoRules,
}

// DefaultCatalog returns every rule prodready has, built once.
func DefaultCatalog() *Catalog { return defaultCatalog() }

var defaultCatalog = sync.OnceValue(func() *Catalog {
	var sections [][]*Rule
	for _, fam := range families {
		sections = append(sections, fam())
	}
	return NewCatalog(sections...)
})
