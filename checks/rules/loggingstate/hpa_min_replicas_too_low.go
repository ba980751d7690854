package loggingstate

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/prodready/prodready/checks/manifest"
)

var hpaMinReplicasTooLow = &checks.Rule{
	ID:       "hpa-min-replicas-too-low",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/horizontal-pod-autoscaler-v2/#HorizontalPodAutoscalerSpec",
	Why:      "an HPA with minReplicas below 2 scales the workload down to one pod, which is a single point of failure during node drains, rollouts and crashes",
	Help:     "minReplicas: 0 is an explicit scale-to-zero choice (HPAScaleToZero) and is not reported.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Patch {
			return nil
		}
		var min *int32
		var max int32
		switch v := obj.Typed.(type) {
		case *autoscalingv1.HorizontalPodAutoscaler:
			min, max = v.Spec.MinReplicas, v.Spec.MaxReplicas
		case *autoscalingv2.HorizontalPodAutoscaler:
			min, max = v.Spec.MinReplicas, v.Spec.MaxReplicas
		default:
			return nil
		}
		if min != nil && (*min == 0 || *min >= 2) {
			return nil
		}
		path := manifest.Path{"spec", "minReplicas"}
		what := "minReplicas is 1"
		if min == nil {
			what = "minReplicas is unset (1)"
		}
		msg := fmt.Sprintf("%s: at low load the workload runs a single pod, which fails with its node, during rollouts and on crashes", what)
		if max < 2 {
			return []checks.Finding{checks.At(obj, path, msg+" (maxReplicas is below 2 too: raise both)")}
		}
		return []checks.Finding{checks.At(obj, path, msg).WithFix("set minReplicas: 2", checks.SetOp(path, "2", "scaleTargetRef"))}
	},
}
