package checks

// apiClusterRules returns the rules of this family. Each rule has its own file.
func apiClusterRules() []*Rule {
	return []*Rule{
		apiRemoved,
		apiDeprecated,
		apiPrerelease,
		jobTTLMissing,
		apiserverInsecureFlag,
		apiserverAuditLog,
		apiserverOIDCMissing,
		apiserverAlphaFeatures,
	}
}

// apiSection is the catalog section of the API/cluster family.
const apiSection = "10. API versions and cluster configuration"
