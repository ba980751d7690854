package faulttolerance

import (
	"github.com/prodready/prodready/checks"
)

const section = "3. Fault tolerance"

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
		nakedPod,
		replicasTooFew,
		replicasWithHPA,
		spreadMissing,
		spreadZoneMissing,
		pdbMissing,
		pdbBlocksEviction,
		pdbNoPolicy,
		pdbMinAboveHPAMin,
		pdbUnhealthyEvictionPolicy,
		selectorMismatch,
	}
}
