package checks

// loggingStateRules returns the rules of this family. Each rule has its own file.
func loggingStateRules() []*Rule {
	return []*Rule{}
}
