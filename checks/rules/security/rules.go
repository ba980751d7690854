package security

import (
	"github.com/prodready/prodready/checks"
)

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
		privilegedContainer,
		privilegeEscalationAllowed,
		runAsRoot,
		readonlyRootfsMissing,
		capabilitiesNotDropped,
		capabilitiesDangerous,
		seccompProfileMissing,
		hostNamespace,
		hostPathVolume,
		hostPort,
		unsafeSysctlsProcmount,
		serviceAccountTokenAutomount,
		defaultServiceAccount,
		serviceaccountMissing,
		podSecurityLevelViolation,
		namespacePodSecurityMissing,
		podSecurityPolicyRemoved,
	}
}
