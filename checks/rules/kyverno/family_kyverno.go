package kyverno

import (
	"github.com/prodready/prodready/checks"
)

// Rules returns the rules of this family. Each rule has its own file.
func Rules() []*checks.Rule {
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
}
