package checks

// faultToleranceRules returns the rules of this family. Each rule has its own file.
func faultToleranceRules() []*Rule {
	return []*Rule{}
}
