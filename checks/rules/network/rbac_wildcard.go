package network

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var rbacWildcard = &checks.Rule{
	ID:       "rbac-wildcard",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/security/rbac-good-practices/#least-privilege",
	Why:      "`*` in verbs, resources or apiGroups grants everything, including what is added later",
	Help:     "An error when the wildcard covers the core, rbac.authorization.k8s.io or admissionregistration.k8s.io groups, or every group: that is cluster takeover.",
	Check: eachRBACRule(func(obj *manifest.Object, i int, r rbacv1.PolicyRule) []checks.Finding {
		var where []string
		if has(r.APIGroups, "*") {
			where = append(where, "apiGroups")
		}
		if has(r.Resources, "*") {
			where = append(where, "resources")
		}
		if has(r.Verbs, "*") {
			where = append(where, "verbs")
		}
		if len(where) == 0 {
			return nil
		}
		sev := checks.Warning
		if has(r.APIGroups, "*") || has(r.APIGroups, "") || has(r.APIGroups, "rbac.authorization.k8s.io") || has(r.APIGroups, "admissionregistration.k8s.io") {
			sev = checks.Error
		}
		groups := make([]string, len(r.APIGroups))
		for j, g := range r.APIGroups {
			if g == "" {
				groups[j] = `"" (core)`
				continue
			}
			groups[j] = strconv.Quote(g)
		}
		path := manifest.Path{"rules", manifest.Index(i), where[0]}
		msg := fmt.Sprintf("%s %q rule %d uses `*` in %s (groups %s): it grants every present and future %s; list what the subject needs",
			obj.Kind, obj.Name, i+1, strings.Join(where, ", "), strings.Join(groups, ", "), wildcardWhat(where))
		if len(r.APIGroups) == 0 && len(r.NonResourceURLs) > 0 {
			msg = fmt.Sprintf("%s %q rule %d uses `*` in %s for non-resource URLs; list the verbs needed", obj.Kind, obj.Name, i+1, strings.Join(where, ", "))
		}
		return []checks.Finding{checks.At(obj, path, msg).WithSeverity(sev)}
	}),
}

func wildcardWhat(where []string) string {
	parts := map[string]string{"apiGroups": "API group", "resources": "resource", "verbs": "verb"}
	out := make([]string, len(where))
	for i, w := range where {
		out[i] = parts[w]
	}
	return strings.Join(out, " and ")
}
