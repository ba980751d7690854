package checks

// securityContextRules returns the rules of this family. Each rule has its own file.
func securityContextRules() []*Rule {
	return []*Rule{
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
