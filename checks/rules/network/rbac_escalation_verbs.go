package network

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var rbacEscalationVerbs = &checks.Rule{
	ID:       "rbac-escalation-verbs",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/security/rbac-good-practices/#privilege-escalation-risks",
	Why:      "escalate, bind and impersonate, and creating pods (or exec/attach into them), let a subject gain permissions it was not given",
	Check: eachRBACRule(func(obj *manifest.Object, i int, r rbacv1.PolicyRule) []checks.Finding {
		var why []string
		for _, v := range []string{"escalate", "bind", "impersonate"} {
			if has(r.Verbs, v) {
				why = append(why, "`"+v+"`")
			}
		}
		if has(r.Verbs, "create") && (has(r.APIGroups, "") || has(r.APIGroups, "*")) {
			for _, res := range []string{"pods", "pods/exec", "pods/attach"} {
				if has(r.Resources, res) {
					why = append(why, "create on "+res)
				}
			}
		}
		if len(why) == 0 {
			return nil
		}
		return []checks.Finding{checks.At(obj, manifest.Path{"rules", manifest.Index(i), "verbs"},
			fmt.Sprintf("%s %q grants %s: a subject holding it can gain permissions beyond this role (run pods as any ServiceAccount of the namespace, or grant itself more); keep it to controllers that need it", obj.Kind, obj.Name, strings.Join(why, ", ")))}
	}),
}
