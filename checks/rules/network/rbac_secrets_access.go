package network

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var rbacSecretsAccess = &checks.Rule{
	ID:       "rbac-secrets-access",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/security/rbac-good-practices/#listing-secrets",
	Why:      "a ClusterRole bound cluster-wide that may list or watch secrets reads every secret of every namespace",
	Help:     "Bind it with RoleBindings in the namespaces that need it, or restrict it with resourceNames (get only).",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if _, ok := obj.Typed().(*rbacv1.ClusterRole); !ok {
			return nil
		}
		rules, _ := rbacRules(obj)
		if len(rules) == 0 {
			return nil
		}
		var binding *manifest.Object
		for _, b := range ctx.ByKind("ClusterRoleBinding") {
			crb, ok := b.Typed().(*rbacv1.ClusterRoleBinding)
			if ok && crb.RoleRef.Kind == "ClusterRole" && crb.RoleRef.Name == obj.Name {
				binding = b
				break
			}
		}
		if binding == nil {
			return nil
		}
		var out []checks.Finding
		for i, r := range rules {
			if len(r.ResourceNames) > 0 {
				continue
			}
			if !(has(r.APIGroups, "") || has(r.APIGroups, "*")) || !(has(r.Resources, "secrets") || has(r.Resources, "*")) {
				continue
			}
			var verbs []string
			for _, v := range []string{"list", "watch"} {
				if has(r.Verbs, v) || has(r.Verbs, "*") {
					verbs = append(verbs, v)
				}
			}
			if len(verbs) == 0 {
				continue
			}
			out = append(out, checks.At(obj, manifest.Path{"rules", manifest.Index(i), "resources"},
				fmt.Sprintf("ClusterRole %q grants %v on secrets and ClusterRoleBinding %q binds it cluster-wide: its subjects read every secret of every namespace; bind it per namespace with RoleBindings, or grant get on named secrets", obj.Name, verbs, binding.Name)))
		}
		return out
	},
}
