package checks

import "github.com/prodready/prodready/checks/manifest"

var namespaceLimitrangeMissing = &Rule{
	ID:       "namespace-limitrange-missing",
	Section:  sectionResources,
	Severity: Info,
	Why:      "a namespace without a LimitRange gives containers that forget requests and limits none at all",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		return resNamespacePolicyCheck(ctx, obj, "LimitRange", "add one with default requests and limits so containers that forget theirs still get sane values")
	},
}
