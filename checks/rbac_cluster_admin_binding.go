package checks

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var rbacClusterAdminBinding = &Rule{
	ID:       "rbac-cluster-admin-binding",
	Section:  naSection,
	Severity: Error,
	Why:      "binding cluster-admin gives its subjects every permission (004: least-privilege RBAC); a RoleBinding to it is admin of one namespace (info)",
	Help:     "allowedSubjects lists subjects that may hold cluster-admin (known controllers): `name`, `namespace/name` (ServiceAccounts) or the binding's name. A binding whose subjects are all allowed does not fire. The default list holds the GitOps reconcilers that apply whole repositories and need cluster-admin by design (Flux's kustomize-controller and helm-controller in flux-system); setting the parameter replaces it.",
	Params:   map[string]any{"allowedSubjects": naDefaultClusterAdmins},
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		var ref rbacv1.RoleRef
		var subjects []rbacv1.Subject
		sev := Error
		switch v := obj.Typed.(type) {
		case *rbacv1.ClusterRoleBinding:
			ref, subjects = v.RoleRef, v.Subjects
		case *rbacv1.RoleBinding:
			ref, subjects, sev = v.RoleRef, v.Subjects, Info
		default:
			return nil
		}
		if ref.Kind != "ClusterRole" || ref.Name != "cluster-admin" {
			return nil
		}
		allowed := map[string]bool{}
		list := naDefaultClusterAdmins
		if _, set := ctx.Config.Rules["rbac-cluster-admin-binding"].Params["allowedSubjects"]; set {
			list = naConfigStrings(ctx.Config, "rbac-cluster-admin-binding", "allowedSubjects")
		}
		for _, s := range list {
			allowed[s] = true
		}
		if allowed[obj.Name] {
			return nil
		}
		var names []string
		for _, s := range subjects {
			id := s.Name
			if s.Namespace != "" {
				id = s.Namespace + "/" + s.Name
			}
			if allowed[s.Name] || allowed[id] {
				continue
			}
			names = append(names, s.Kind+" "+id)
		}
		if len(subjects) > 0 && len(names) == 0 {
			return nil
		}
		scope := "every permission in the cluster"
		if sev == Info {
			scope = "every permission in namespace " + naOr(ctx.Namespace(obj), "of the binding")
		}
		return []Finding{At(obj, manifest.Path{"roleRef", "name"},
			fmt.Sprintf("%s %q binds cluster-admin to %v: they get %s; grant a role with only what they need, or list a known controller under rules.rbac-cluster-admin-binding.allowedSubjects", obj.Kind, obj.Name, names, scope)).WithSeverity(sev)}
	},
}

func naOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// naDefaultClusterAdmins are the known controllers that hold cluster-admin
// by design: Flux's reconcilers apply arbitrary objects of the repository.
var naDefaultClusterAdmins = []string{"flux-system/kustomize-controller", "flux-system/helm-controller"}
