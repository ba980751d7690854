package checks

// lsSection is the catalog section of the logging and state family.
const lsSection = "6. Logging and state"

// loggingStateRules returns the rules of this family. Each rule has its own file.
func loggingStateRules() []*Rule {
	return []*Rule{
		loggingSidecar,
		rwoVolumeSharedByReplicas,
		hpaMissing,
		hpaTargetMissing,
		hpaMinReplicasTooLow,
		vpaAutoUpdate,
	}
}
