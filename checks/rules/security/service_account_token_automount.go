package security

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var serviceAccountTokenAutomount = &checks.Rule{
	ID:       "service-account-token-automount",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/#opt-out-of-api-credential-automounting",
	Why:      "a pod whose ServiceAccount has no RBAC binding does not need an API token, yet one is mounted unless automountServiceAccountToken is false",
	Check: appPods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		if !mountsTokenHere(ctx, obj, pt) {
			return nil
		}
		sa := serviceAccount(pt)
		accounts := findServiceAccounts(ctx, obj, sa)
		if len(accounts) == 0 && sa != "default" {
			return nil // defined elsewhere: its bindings are not in the repo either
		}
		for _, a := range accounts {
			if cloudIdentity(a.Annotations, a.Labels) {
				return nil // the account exists to give the pod a cloud identity
			}
		}
		if pt.Spec.AutomountServiceAccountToken == nil {
			for _, a := range accounts {
				if s, ok := a.Typed().(*corev1.ServiceAccount); ok && s.AutomountServiceAccountToken != nil && !*s.AutomountServiceAccountToken {
					return nil
				}
			}
		}
		if serviceAccountBound(ctx, obj, sa) {
			return nil
		}
		at := pt.SpecPath.Child("automountServiceAccountToken")
		if !obj.Has(at...) {
			if obj.Has(pt.SpecPath.Child("serviceAccountName")...) {
				at = pt.SpecPath.Child("serviceAccountName")
			} else if obj.Has(pt.SpecPath.Child("serviceAccount")...) {
				at = pt.SpecPath.Child("serviceAccount")
			}
		}
		f := checks.At(obj, at, fmt.Sprintf("the pod mounts an API token for ServiceAccount %q, which has no RoleBinding or ClusterRoleBinding in the repo: set automountServiceAccountToken: false unless the app calls the Kubernetes API", sa))
		return []checks.Finding{f.WithFix("set automountServiceAccountToken: false on the pod", kube.Set(obj, pt.SpecPath.Child("automountServiceAccountToken"), "false", ""))}
	}),
}

// serviceAccountBound reports whether a RoleBinding or ClusterRoleBinding
// of the repo grants anything to ServiceAccount sa of obj's namespace. A
// subject whose namespace and obj's are both known must name the same;
// when either is unknown the binding must share obj's deployment unit
// (kube.ShareNamespace): a RoleBinding in one application's folder that
// names ServiceAccount default binds no pod of another application.
func serviceAccountBound(ctx *checks.Context, obj *manifest.Object, sa string) bool {
	ns := ctx.Namespace(obj)
	related := func(b *manifest.Object, sns string) bool {
		if ns != "" && sns != "" {
			return sns == ns
		}
		return checks.RelatedUnits(ctx.Unit(b), ctx.Unit(obj))
	}
	matches := func(b *manifest.Object, subjects []rbacv1.Subject) bool {
		for _, s := range subjects {
			sns := s.Namespace
			if sns == "" && b.Kind == "RoleBinding" {
				sns = ctx.Namespace(b)
			}
			switch {
			case s.Kind == "ServiceAccount" && s.Name == sa && related(b, sns):
				return true
			case s.Kind == "Group" && s.Name == "system:serviceaccounts":
				return true
			case s.Kind == "Group" && strings.HasPrefix(s.Name, "system:serviceaccounts:") && related(b, strings.TrimPrefix(s.Name, "system:serviceaccounts:")):
				return true
			case s.Kind == "User" && s.Name == "system:serviceaccount:"+ns+":"+sa:
				return true
			}
		}
		return false
	}
	for _, b := range ctx.ByKind("RoleBinding") {
		if rb, ok := b.Typed().(*rbacv1.RoleBinding); ok && kube.ShareNamespace(ctx, b, obj) && matches(b, rb.Subjects) {
			return true
		}
	}
	for _, b := range ctx.ByKind("ClusterRoleBinding") {
		if rb, ok := b.Typed().(*rbacv1.ClusterRoleBinding); ok && matches(b, rb.Subjects) {
			return true
		}
	}
	return false
}

// cloudIdentity reports whether a ServiceAccount is bound to a cloud
// identity (GKE Workload Identity, EKS IRSA / Pod Identity, Azure Workload
// Identity): its token is how the pod reaches the cloud, RBAC or not.
func cloudIdentity(annotations, labels map[string]string) bool {
	for k := range annotations {
		if strings.HasPrefix(k, "iam.gke.io/") || strings.HasPrefix(k, "eks.amazonaws.com/") || strings.HasPrefix(k, "azure.workload.identity/") {
			return true
		}
	}
	return labels["azure.workload.identity/use"] == "true"
}
