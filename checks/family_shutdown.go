package checks

// sdSection is the catalog section of the shutdown family.
const sdSection = "2. Graceful shutdown and signals"

// shutdownRules returns the rules of this family. Each rule has its own file.
func shutdownRules() []*Rule {
	return []*Rule{
		prestopHookMissing,
		terminationGraceTooShort,
		shellWrappedEntrypoint,
	}
}
