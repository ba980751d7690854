package checks

// securityContextRules returns the rules of this family. Each rule has its own file.
func securityContextRules() []*Rule {
	return []*Rule{}
}
