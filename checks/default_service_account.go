package checks

import (
	"github.com/prodready/prodready/checks/manifest"
)

var defaultServiceAccount = &Rule{
	ID:       "default-service-account",
	Section:  sectionSecurity,
	Severity: Info,
	Why:      "pods that run as the namespace's default ServiceAccount share one identity, so RBAC granted for one app reaches all of them",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		if pt == nil || secStaticControlPlane(obj) || secServiceAccount(pt) != "default" {
			return nil
		}
		// Without a token the pod makes no use of the account's identity.
		if resPatchSets(ctx, obj, "", "automountServiceAccountToken") || resPatchSets(ctx, obj, "", "serviceAccountName") {
			return nil // an overlay's patch decides
		}
		if a := pt.Spec.AutomountServiceAccountToken; a != nil && !*a {
			return nil
		}
		at := pt.SpecPath.Child("serviceAccountName")
		if !obj.Has(at...) && obj.Has(pt.SpecPath.Child("serviceAccount")...) {
			at = pt.SpecPath.Child("serviceAccount")
		}
		return []Finding{At(obj, at, "the pod runs as the namespace's default ServiceAccount: give the app its own ServiceAccount (serviceAccountName), or set automountServiceAccountToken: false if it never calls the Kubernetes API")}
	},
}
