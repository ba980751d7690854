package resources

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var namespaceResourcequotaMissing = &checks.Rule{
	ID:       "namespace-resourcequota-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/policy/resource-quotas/",
	Why:      "a namespace without a ResourceQuota lets one team's runaway rollout take the whole cluster's capacity",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		return namespacePolicyCheck(ctx, obj, "ResourceQuota", "add one to cap what the namespace can consume")
	},
}
