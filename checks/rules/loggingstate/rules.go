package loggingstate

import (
	"github.com/prodready/prodready/checks"
)

// section is the catalog section of the logging and state family.
const section = "6. Logging and state"

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
		loggingSidecar,
		rwoVolumeSharedByReplicas,
		hpaMissing,
		hpaTargetMissing,
		hpaMinReplicasTooLow,
		vpaAutoUpdate,
	}
}
