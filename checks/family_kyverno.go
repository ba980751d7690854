package checks

// admissionKyvernoRules returns the rules of this family. Each rule has its own file.
func admissionKyvernoRules() []*Rule {
	rules := []*Rule{
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
			r.Check = kyvStripStringFixes(r.Check)
		}
	}
	return rules
}
