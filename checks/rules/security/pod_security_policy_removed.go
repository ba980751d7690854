package security

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var podSecurityPolicyRemoved = &checks.Rule{
	ID:       "pod-security-policy-removed",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/concepts/security/pod-security-policy/",
	Why:      "PodSecurityPolicy was removed in Kubernetes 1.25: the API server rejects it and nothing enforces it",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Kind != "PodSecurityPolicy" || obj.Patch {
			return nil
		}
		if m := ctx.Config.TargetMinor(); m > 0 && m < 25 {
			return nil
		}
		return []checks.Finding{checks.At(obj, manifest.Path{"kind"}, "PodSecurityPolicy was removed in Kubernetes 1.25: the API server rejects it. Label the namespaces with pod-security.kubernetes.io/enforce (Pod Security Admission) or use a policy engine such as Kyverno instead, and remove this object")}
	},
}
