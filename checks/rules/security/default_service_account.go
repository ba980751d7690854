package security

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

var defaultServiceAccount = &checks.Rule{
	ID:       "default-service-account",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/security/service-accounts/#default-service-accounts",
	Why:      "pods that run as the namespace's default ServiceAccount share one identity, so RBAC granted for one app reaches all of them",
	Help:     "Give the app a ServiceAccount of its own and name it in serviceAccountName, or set automountServiceAccountToken: false if it never calls the Kubernetes API. In a chart that has a template writing one, which its values leave out, the finding names that template and the action it is written under, and its fix sets the values that turn it on (not when a binding of the repository grants the default account something, which the pod would lose).",
	Check: appPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		// Without a token the pod makes no use of the account's identity.
		if serviceAccount(pt) != "default" || !mountsTokenHere(ctx, obj, pt) {
			return nil
		}
		at := pt.SpecPath.Child("serviceAccountName")
		if !obj.Has(at...) && obj.Has(pt.SpecPath.Child("serviceAccount")...) {
			at = pt.SpecPath.Child("serviceAccount")
		}
		own := "give the app its own ServiceAccount (serviceAccountName)"
		var fix *checks.Fix
		if d, ok := ctx.DormantTemplate(obj, "ServiceAccount"); ok {
			own = d.Says() + ": set the values that create it and make the pod use it"
			// Not when the repository grants the default account
			// something: the pod would lose it with the new account.
			if !serviceAccountBound(ctx, obj, "default") {
				fix = d.TurnOnFix()
			}
		}
		f := checks.At(obj, at, "the pod runs as the namespace's default ServiceAccount: "+own+", or set automountServiceAccountToken: false if it never calls the Kubernetes API")
		f.Fix = fix
		return []checks.Finding{f}
	}),
}
