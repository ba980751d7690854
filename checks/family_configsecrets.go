package checks

// configSecretRules returns the rules of this family. Each rule has its own file.
func configSecretRules() []*Rule {
	return []*Rule{}
}
