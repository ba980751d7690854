package security

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"
	psaapi "k8s.io/pod-security-admission/api"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var namespacePodSecurityMissing = &checks.Rule{
	ID:       "namespace-pod-security-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/security/pod-security-admission/#pod-security-admission-labels-for-namespaces",
	Why:      "a namespace without a pod-security.kubernetes.io/enforce label admits any pod; Pod Security Admission is the successor of PodSecurityPolicy",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if _, ok := obj.Typed().(*corev1.Namespace); !ok || obj.Name == "" {
			return nil
		}
		if _, ok := obj.Labels[psaapi.EnforceLevelLabel]; ok {
			return nil
		}
		labels := manifest.Path{"metadata", "labels"}
		at := labels.Child(psaapi.EnforceLevelLabel)
		if len(kube.NamespaceWorkloads(ctx, obj.Name)) == 0 {
			// Its pods come from elsewhere (a Helm release, an operator, a
			// later change): enforcing a level blind could reject them.
			return []checks.Finding{checks.At(obj, at, fmt.Sprintf("namespace %q has no pod-security.kubernetes.io/enforce label, so it admits any pod; none of its workloads is in the repo, so set warn and audit to restricted first, then enforce the strictest level the warnings show its pods meet", obj.Name))}
		}
		level := strictestLevel(ctx, obj.Name)
		ops := []edit.Op{kube.Set(obj, labels.Child(psaapi.EnforceLevelLabel), string(level), "")}
		for _, l := range []string{psaapi.WarnLevelLabel, psaapi.AuditLevelLabel} {
			if _, ok := obj.Labels[l]; !ok {
				ops = append(ops, kube.Set(obj, labels.Child(l), string(psaapi.LevelRestricted), ""))
			}
		}
		msg := fmt.Sprintf("namespace %q has no pod-security.kubernetes.io/enforce label, so it admits any pod: enforce the strictest level its workloads meet (%s here) and warn and audit at restricted", obj.Name, level)
		return []checks.Finding{checks.At(obj, at, msg).
			WithFix(fmt.Sprintf("enforce the %s level (the strictest every workload of the namespace in the repo meets) and warn and audit at restricted", level), ops...)}
	},
}
