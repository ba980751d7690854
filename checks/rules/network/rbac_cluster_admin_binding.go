package network

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var rbacClusterAdminBinding = &checks.Rule{
	ID:       "rbac-cluster-admin-binding",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/concepts/security/rbac-good-practices/#least-privilege",
	Why:      "binding cluster-admin gives its subjects every permission; a RoleBinding to it is admin of one namespace (info)",
	Help:     "allowedSubjects lists subjects that may hold cluster-admin (known controllers): `name`, `namespace/name` (ServiceAccounts) or the binding's name. A binding whose subjects are all allowed does not fire. The default list holds the GitOps reconcilers that apply whole repositories and need cluster-admin by design (Flux's kustomize-controller and helm-controller in flux-system); setting the parameter replaces it.",
	Params:   map[string]any{"allowedSubjects": defaultClusterAdmins},
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var ref rbacv1.RoleRef
		var subjects []rbacv1.Subject
		sev := checks.Error
		switch v := obj.Typed().(type) {
		case *rbacv1.ClusterRoleBinding:
			ref, subjects = v.RoleRef, v.Subjects
		case *rbacv1.RoleBinding:
			ref, subjects, sev = v.RoleRef, v.Subjects, checks.Info
		default:
			return nil
		}
		if ref.Kind != "ClusterRole" || ref.Name != "cluster-admin" {
			return nil
		}
		allowed := map[string]bool{}
		list := defaultClusterAdmins
		if _, set := ctx.Config.Rules["rbac-cluster-admin-binding"].Params["allowedSubjects"]; set {
			list = configStrings(ctx.Config, "rbac-cluster-admin-binding", "allowedSubjects")
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
			names = append(names, s.Kind+" "+strconv.Quote(id))
		}
		if len(subjects) > 0 && len(names) == 0 {
			return nil
		}
		scope := "every permission in the cluster"
		if sev == checks.Info {
			scope = "every permission in namespace " + or(ctx.Namespace(obj), "of the binding")
		}
		return []checks.Finding{checks.At(obj, manifest.Path{"roleRef", "name"},
			fmt.Sprintf("%s %q binds cluster-admin to %s: they get %s; grant a role with only what they need, or list a known controller under rules.rbac-cluster-admin-binding.allowedSubjects", obj.Kind, obj.Name, "["+strings.Join(names, " ")+"]", scope)).WithSeverity(sev)}
	},
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// defaultClusterAdmins are the known controllers that hold cluster-admin
// by design: Flux's reconcilers apply arbitrary objects of the repository.
var defaultClusterAdmins = []string{"flux-system/kustomize-controller", "flux-system/helm-controller"}
