package checks

const sectionFaultTolerance = "3. Fault tolerance"

// faultToleranceRules returns the rules of this family. Each rule has its own file.
func faultToleranceRules() []*Rule {
	return []*Rule{
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
