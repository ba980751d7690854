package checks

// shutdownRules returns the rules of this family. Each rule has its own file.
func shutdownRules() []*Rule {
	return []*Rule{}
}
