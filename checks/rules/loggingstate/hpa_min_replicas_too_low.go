package loggingstate

import (
	"fmt"
	"strconv"
	"strings"

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
	Help:     "minReplicas: 0 is an explicit scale-to-zero choice (HPAScaleToZero) and is not reported. A KEDA ScaledObject's minReplicaCount is judged the same way (unset is 0 there: KEDA scales to zero), when it scales a workload the checks know (a Deployment, StatefulSet, Argo Rollout or OpenKruise CloneSet, not an operator's resource).",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Patch {
			return nil
		}
		if checks.IsKEDAScaledObject(obj) {
			if kind, _ := checks.HPATarget(obj); !scalableKinds[kind] {
				return nil // an operator's resource (a Slurm NodeSet, a Kafka consumer group): its pods are not a workload's replicas
			}
			return kedaMinTooLow(obj)
		}
		var min *int32
		var max int32
		switch v := obj.Typed().(type) {
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
		return []checks.Finding{raisesTarget(obj, checks.At(obj, path, msg).WithFix("set minReplicas: 2", checks.SetOp(path, "2", "scaleTargetRef")))}
	},
}

// raisesTarget returns f, whose fix raises the least replicas of the
// workload autoscaler h scales, with that workload's spreading and
// disruption budget as the fix's follow-ups, as for replicas-too-few's:
// they come after it, and rendering a chart or building an overlay again
// with the fix does not count them against it.
func raisesTarget(h *manifest.Object, f checks.Finding) checks.Finding {
	kind, name := checks.HPATarget(h)
	if kind == "" || name == "" {
		return f
	}
	f.Fix.FollowUps = []string{"spread-missing", "spread-zone-missing", "pdb-missing"}
	f.Fix.FollowUpsOn = &checks.ObjectRef{Kind: kind, Name: name, Namespace: h.Namespace, Doc: -1}
	return f
}

// kedaMinTooLow reports a KEDA ScaledObject whose minReplicaCount is 1: at
// low load the workload runs one pod. Unset or 0 is KEDA's scale to zero,
// a choice, as minReplicas: 0 is for an HPA.
func kedaMinTooLow(obj *manifest.Object) []checks.Finding {
	path := manifest.Path{"spec", "minReplicaCount"}
	s, _ := obj.Scalar(path...)
	if strings.TrimSpace(s) != "1" {
		return nil
	}
	msg := "minReplicaCount is 1: at low load the workload runs a single pod, which fails with its node, during rollouts and on crashes"
	if m, set := obj.Scalar("spec", "maxReplicaCount"); set {
		if n, err := strconv.Atoi(strings.TrimSpace(m)); err == nil && n < 2 {
			return []checks.Finding{checks.At(obj, path, msg+" (maxReplicaCount is below 2 too: raise both)")}
		}
	}
	return []checks.Finding{raisesTarget(obj, checks.At(obj, path, msg).WithFix("set minReplicaCount: 2", checks.SetOp(path, "2")))}
}
