package resources

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var namespaceLimitrangeMissing = &checks.Rule{
	ID:       "namespace-limitrange-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/policy/limit-range/",
	Why:      "a namespace without a LimitRange gives containers that forget requests and limits none at all",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		return namespacePolicyCheck(ctx, obj, "LimitRange", "add one with default requests and limits so containers that forget theirs still get sane values")
	},
}
