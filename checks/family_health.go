package checks

// healthRules returns the rules of this family. Each rule has its own file.
func healthRules() []*Rule {
	return []*Rule{}
}
