package checks

const sectionHealth = "1. Health checks"

// healthRules returns the rules of this family. Each rule has its own file.
func healthRules() []*Rule {
	return []*Rule{
		probeNamedPortUndeclared,
		readinessProbeMissing,
		livenessProbeMissing,
		probesIdentical,
		livenessProbeTooEager,
		readinessProbeExternalDependency,
	}
}
