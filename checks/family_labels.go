package checks

// labelRules returns the rules of this family. Each rule has its own file.
func labelRules() []*Rule {
	return []*Rule{}
}
