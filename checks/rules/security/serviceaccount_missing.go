package security

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var serviceaccountMissing = &checks.Rule{
	ID:       "serviceaccount-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/",
	Why:      "a pod whose ServiceAccount does not exist is never created (the controller keeps failing); the deprecated serviceAccount field should be serviceAccountName",
	Check: kube.OnWholePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		spec := pt.Spec
		if old := spec.DeprecatedServiceAccount; old != "" {
			p := pt.SpecPath.Child("serviceAccount")
			switch {
			case spec.ServiceAccountName == "":
				out = append(out, checks.At(obj, p, fmt.Sprintf("serviceAccount is deprecated: use serviceAccountName: %q", old)).
					WithFix("rename serviceAccount to serviceAccountName",
						kube.Set(obj, pt.SpecPath.Child("serviceAccountName"), old, ""), checks.DeleteOp(p)))
			case spec.ServiceAccountName == old:
				out = append(out, checks.At(obj, p, "serviceAccount is deprecated and repeats serviceAccountName: remove it").
					WithFix("remove the deprecated serviceAccount", checks.DeleteOp(p)))
			default:
				out = append(out, checks.At(obj, p, fmt.Sprintf("serviceAccount %q is deprecated and differs from serviceAccountName %q, which wins: remove serviceAccount", old, spec.ServiceAccountName)).
					WithFix("remove the deprecated serviceAccount", checks.DeleteOp(p)))
			}
		}
		sa := spec.ServiceAccountName
		if sa == "" || sa == "default" || !unitDefinesServiceAccounts(ctx, obj) || len(findServiceAccounts(ctx, obj, sa)) > 0 {
			return out
		}
		return append(out, checks.At(obj, pt.SpecPath.Child("serviceAccountName"), fmt.Sprintf("ServiceAccount %q is not defined in this deployment unit, which defines its other ServiceAccounts: the pods are not created until it exists (check the name)", sa)))
	}),
}

// unitDefinesServiceAccounts reports whether obj's deployment unit holds
// any ServiceAccount (only then is a missing one a mistake, not an account
// made elsewhere).
func unitDefinesServiceAccounts(ctx *checks.Context, obj *manifest.Object) bool {
	u := ctx.Unit(obj)
	for _, s := range ctx.ByKind("ServiceAccount") {
		if ctx.Unit(s) == u {
			return true
		}
	}
	return false
}
