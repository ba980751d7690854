package checks

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var hpaMissing = &Rule{
	ID:       "hpa-missing",
	Section:  lsSection,
	Severity: Info,
	OptIn:    true,
	Why:      "a serving Deployment has no HorizontalPodAutoscaler, so it cannot follow load",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		if _, ok := obj.Typed.(*appsv1.Deployment); !ok || obj.Patch || !ctx.IsServing(obj) {
			return nil
		}
		if len(ctx.HPAsFor(obj)) > 0 {
			return nil
		}
		return []Finding{At(obj, nil, "a Service routes traffic to this Deployment but no HorizontalPodAutoscaler scales it, so it cannot follow load (add an HPA on CPU, and then remove spec.replicas)")}
	},
}
