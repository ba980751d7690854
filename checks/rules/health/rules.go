package health

import (
	"github.com/prodready/prodready/checks"
)

const section = "1. Health checks"

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
		probeNamedPortUndeclared,
		readinessProbeMissing,
		livenessProbeMissing,
		probesIdentical,
		probesEquivalent,
		livenessProbeTooEager,
		readinessProbeExternalDependency,
	}
}
