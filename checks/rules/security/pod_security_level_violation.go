package security

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var podSecurityLevelViolation = &checks.Rule{
	ID:       "pod-security-level-violation",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/concepts/security/pod-security-standards/",
	Why:      "a workload that violates its namespace's enforced Pod Security level (baseline or restricted) is rejected at admission: its pods are never created",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := kube.WholePodTemplate(ctx, obj)
		ns := ctx.Namespace(obj)
		if pt == nil || ns == "" {
			return nil
		}
		for _, n := range namespaceObjects(ctx, ns) {
			lv, ok := levelVersion(ctx, n.Labels)
			if !ok {
				continue
			}
			failed := pssViolations(pt, lv)
			if len(failed) == 0 {
				continue
			}
			f := checks.At(obj, nil, fmt.Sprintf("namespace %q enforces the %q Pod Security level, which this %s violates, so admission rejects its pods: %s", ns, lv.Level, obj.Kind, reasons(failed)))
			if ops := pssFix(ctx, obj, pt, failed); len(ops) > 0 {
				f = f.WithFix(fmt.Sprintf("apply the fixes that make the pod meet the %s level (UID/GID %d is a starting point)", lv.Level, placeholderID), ops...)
			}
			return []checks.Finding{f}
		}
		return nil
	},
}
