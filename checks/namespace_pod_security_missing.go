package checks

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	psaapi "k8s.io/pod-security-admission/api"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var namespacePodSecurityMissing = &Rule{
	ID:       "namespace-pod-security-missing",
	Section:  sectionSecurity,
	Severity: Info,
	Why:      "a namespace without a pod-security.kubernetes.io/enforce label admits any pod; Pod Security Admission is the successor of PodSecurityPolicy",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		if _, ok := obj.Typed.(*corev1.Namespace); !ok || obj.Name == "" {
			return nil
		}
		if _, ok := obj.Labels[psaapi.EnforceLevelLabel]; ok {
			return nil
		}
		level := secStrictestLevel(ctx, obj.Name)
		labels := manifest.Path{"metadata", "labels"}
		ops := []edit.Op{resSet(obj, labels.Child(psaapi.EnforceLevelLabel), string(level), "")}
		for _, l := range []string{psaapi.WarnLevelLabel, psaapi.AuditLevelLabel} {
			if _, ok := obj.Labels[l]; !ok {
				ops = append(ops, resSet(obj, labels.Child(l), string(psaapi.LevelRestricted), ""))
			}
		}
		msg := fmt.Sprintf("namespace %q has no pod-security.kubernetes.io/enforce label, so it admits any pod: enforce the strictest level its workloads meet (%s here) and warn and audit at restricted", obj.Name, level)
		return []Finding{At(obj, labels.Child(psaapi.EnforceLevelLabel), msg).
			WithFix(fmt.Sprintf("enforce the %s level (the strictest every workload of the namespace in the repo meets) and warn and audit at restricted", level), ops...)}
	},
}
