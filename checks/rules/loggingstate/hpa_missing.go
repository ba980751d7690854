package loggingstate

import (
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

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
		// A Rollout and a CloneSet are scaled like a Deployment; a Knative
		// Service by Knative's own autoscaler, so it is not asked for one.
		// A Rollout with a workloadRef is selected through its
		// Deployment's template; that Deployment is the Rollout's to scale.
		src := kube.PodSource(ctx, obj)
		if obj.LikeKind() != manifest.LikeDeployment || obj.Patch || src == nil || !ctx.IsSelected(src) || kube.ReferencingRollout(ctx, obj) != nil {
			return nil
		}
		if len(ctx.HPAsFor(obj)) > 0 {
			return nil // an HPA, or a KEDA ScaledObject (which makes one)
		}
		return []checks.Finding{checks.At(obj, nil, "a Service routes traffic to this "+obj.Kind+" but no HorizontalPodAutoscaler scales it, so it cannot follow load (add an HPA on CPU, and then remove spec.replicas)")}
	},
}
