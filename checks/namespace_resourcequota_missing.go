package checks

import "github.com/prodready/prodready/checks/manifest"

var namespaceResourcequotaMissing = &Rule{
	ID:       "namespace-resourcequota-missing",
	Section:  sectionResources,
	Severity: Info,
	Why:      "a namespace without a ResourceQuota lets one team's runaway rollout take the whole cluster's capacity",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		return resNamespacePolicyCheck(ctx, obj, "ResourceQuota", "add one to cap what the namespace can consume")
	},
}
