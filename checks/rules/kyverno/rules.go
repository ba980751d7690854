package kyverno

import (
	"sync"

	"github.com/prodready/prodready/checks"
)

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule { return rules() }

// rules builds the list once: each rule's Check is wrapped so that fixes of
// Kyverno values held in a string (an Argo CD Application's inline
// values) are left out.
var rules = sync.OnceValue(func() []*checks.Rule {
	rules := []*checks.Rule{
		kyvernoValuesMixedGeneration,
		helmValuesUnknownKey,
		kyvernoReplicas,
		kyvernoPDB,
		kyvernoSpread,
		kyvernoResources,
		kyvernoControllerResources,
		kyvernoMetricsDisabled,
		kyvernoFailOpen,
		kyvernoWebhookBlockedByNetworkPolicy,
		kyvernoInKubeSystem,
		kyvernoHAInvisible,
		webhookTimeout,
		webhookFailClosedNotHA,
		webhookKubeSystemNotExcluded,
	}
	for _, r := range rules {
		if r.Check != nil {
			r.Check = stripStringFixes(r.Check)
		}
	}
	return rules
})
