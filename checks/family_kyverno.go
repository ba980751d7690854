package checks

// admissionKyvernoRules returns the rules of this family. Each rule has its own file.
func admissionKyvernoRules() []*Rule {
	return []*Rule{
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
}
