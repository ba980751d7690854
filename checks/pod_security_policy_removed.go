package checks

import (
	"github.com/prodready/prodready/checks/manifest"
)

var podSecurityPolicyRemoved = &Rule{
	ID:       "pod-security-policy-removed",
	Section:  sectionSecurity,
	Severity: Error,
	Why:      "PodSecurityPolicy was removed in Kubernetes 1.25: the API server rejects it and nothing enforces it",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		if obj.Kind != "PodSecurityPolicy" || obj.Patch {
			return nil
		}
		if m := ctx.Config.TargetMinor(); m > 0 && m < 25 {
			return nil
		}
		return []Finding{At(obj, manifest.Path{"kind"}, "PodSecurityPolicy was removed in Kubernetes 1.25: the API server rejects it. Label the namespaces with pod-security.kubernetes.io/enforce (Pod Security Admission) or use a policy engine such as Kyverno instead, and remove this object")}
	},
}
