package resources

import (
	"github.com/prodready/prodready/checks"
)

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
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
