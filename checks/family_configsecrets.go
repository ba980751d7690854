package checks

// csSection is the catalog section of the configuration and secrets family.
const csSection = "7. Configuration and secrets"

// configSecretRules returns the rules of this family. Each rule has its own file.
func configSecretRules() []*Rule {
	return []*Rule{
		secretInEnv,
		sensitiveEnvLiteral,
		configmapSensitiveData,
		duplicateEnv,
	}
}
