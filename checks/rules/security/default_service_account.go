package security

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

var defaultServiceAccount = &checks.Rule{
	ID:       "default-service-account",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/security/service-accounts/#default-service-accounts",
	Why:      "pods that run as the namespace's default ServiceAccount share one identity, so RBAC granted for one app reaches all of them",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := kube.WholePodTemplate(ctx, obj)
		if pt == nil || staticControlPlane(obj) || serviceAccount(pt) != "default" {
			return nil
		}
		// Without a token the pod makes no use of the account's identity.
		if kube.PatchSets(ctx, obj, "", "automountServiceAccountToken") || kube.PatchSets(ctx, obj, "", "serviceAccountName") {
			return nil // an overlay's patch decides
		}
		if a := pt.Spec.AutomountServiceAccountToken; a != nil && !*a {
			return nil
		}
		at := pt.SpecPath.Child("serviceAccountName")
		if !obj.Has(at...) && obj.Has(pt.SpecPath.Child("serviceAccount")...) {
			at = pt.SpecPath.Child("serviceAccount")
		}
		return []checks.Finding{checks.At(obj, at, "the pod runs as the namespace's default ServiceAccount: give the app its own ServiceAccount (serviceAccountName), or set automountServiceAccountToken: false if it never calls the Kubernetes API")}
	},
}
