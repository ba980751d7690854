package checks

import (
	"fmt"

	"github.com/prodready/prodready/checks/manifest"
)

var podSecurityLevelViolation = &Rule{
	ID:       "pod-security-level-violation",
	Section:  sectionSecurity,
	Severity: Error,
	Why:      "a workload that violates its namespace's enforced Pod Security level (baseline or restricted) is rejected at admission: its pods are never created",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		pt := resPodTemplate(ctx, obj)
		ns := ctx.Namespace(obj)
		if pt == nil || ns == "" {
			return nil
		}
		for _, n := range secNamespaceObjects(ctx, ns) {
			lv, ok := secLevelVersion(ctx, n.Labels)
			if !ok {
				continue
			}
			failed := secPSSViolations(pt, lv)
			if len(failed) == 0 {
				continue
			}
			f := At(obj, nil, fmt.Sprintf("namespace %q enforces the %s Pod Security level, which this %s violates, so admission rejects its pods: %s", ns, lv.Level, obj.Kind, secReasons(failed)))
			if ops := secPSSFix(ctx, obj, pt, failed); len(ops) > 0 {
				f = f.WithFix(fmt.Sprintf("apply the fixes that make the pod meet the %s level (UID/GID %d is a starting point)", lv.Level, secPlaceholderID), ops...)
			}
			return []Finding{f}
		}
		return nil
	},
}
