package apicluster

import (
	"github.com/prodready/prodready/checks"
)

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
		removed,
		deprecated,
		prerelease,
		jobTTLMissing,
		cronjobStartingDeadlineMissing,
		apiserverInsecureFlag,
		apiserverAuditLog,
		apiserverOIDCMissing,
		apiserverAlphaFeatures,
	}
}

// section is the catalog section of the API/cluster family.
const section = "10. API versions and cluster configuration"
