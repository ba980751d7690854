package network

import (
	"github.com/prodready/prodready/checks"
)

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
		networkpolicyMissing,
		serviceSelectsNothing,
		networkpolicySelectsNothing,
		statefulsetServiceNotHeadless,
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
