package checks

// resourceRules returns the rules of this family. Each rule has its own file.
func resourceRules() []*Rule {
	return []*Rule{
		memoryRequestsMissing,
		memoryLimitMissing,
		cpuRequestsMissing,
		cpuRequestTooHigh,
		cpuLimitSet,
		limitBelowRequest,
		namespaceLimitrangeMissing,
		namespaceResourcequotaMissing,
		priorityClassMissing,
	}
}
