package checks

// networkAccessRules returns the rules of this family. Each rule has its own file.
func networkAccessRules() []*Rule {
	return []*Rule{
		networkpolicyMissing,
		serviceSelectsNothing,
		ingressBackendMissing,
		rbacWildcard,
		rbacSecretsAccess,
		rbacEscalationVerbs,
		rbacClusterAdminBinding,
		serviceaccountShared,
		serviceaccountTokenSecret,
		imageRegistryNotAllowed,
		imageTagMutable,
		imageNotPinned,
		ingressHostDuplicate,
		ingressHostNotApproved,
		ingressTLSMissing,
	}
}
