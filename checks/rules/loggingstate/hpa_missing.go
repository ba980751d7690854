package loggingstate

import (
	"github.com/prodready/prodready/checks"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var hpaMissing = &checks.Rule{
	ID:       "hpa-missing",
	Section:  section,
	Severity: checks.Info,
	OptIn:    true,
	Ref:      "https://kubernetes.io/docs/concepts/workloads/autoscaling/horizontal-pod-autoscale/",
	Why:      "a serving Deployment has no HorizontalPodAutoscaler, so it cannot follow load",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if _, ok := obj.Typed.(*appsv1.Deployment); !ok || obj.Patch || !ctx.IsSelected(obj) {
			return nil
		}
		if len(ctx.HPAsFor(obj)) > 0 {
			return nil
		}
		return []checks.Finding{checks.At(obj, nil, "a Service routes traffic to this Deployment but no HorizontalPodAutoscaler scales it, so it cannot follow load (add an HPA on CPU, and then remove spec.replicas)")}
	},
}
