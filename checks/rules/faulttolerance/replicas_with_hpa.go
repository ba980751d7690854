package faulttolerance

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/inert"

	"github.com/prodready/prodready/checks/manifest"
)

var replicasWithHPA = &checks.Rule{
	ID:       "replicas-with-hpa",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/workloads/autoscaling/horizontal-pod-autoscale/#migrating-deployments-and-statefulsets-to-horizontal-autoscaling",
	Why:      "an HPA (or a KEDA ScaledObject, which makes one) scales the workload and the manifest also sets replicas, so every apply resets the scale the HPA chose",
	Help: "Remove spec.replicas and let the HPA own it. With client-side `kubectl apply`, first remove replicas from the last-applied annotation " +
		"(`kubectl apply edit-last-applied`), or the next apply scales the workload down to 1.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		n, set := obj.Replicas()
		if !set {
			return nil
		}
		hpas := hpasFor(ctx, obj)
		if len(hpas) == 0 {
			return nil
		}
		names := make([]string, 0, len(hpas))
		what := "HorizontalPodAutoscaler"
		for _, h := range hpas {
			names = append(names, h.Name)
			if checks.IsKEDAScaledObject(h) {
				what = "KEDA ScaledObject" // it makes the HPA that scales the workload
			}
		}
		ref := strings.ToLower(obj.Kind) + "/" + obj.Name
		path := manifest.Path{"spec", "replicas"}
		msg := fmt.Sprintf("%s %s scales this %s, but the manifest sets replicas: %d, so every apply resets the scale the HPA chose. "+
			"Remove replicas; with client-side kubectl apply, first run %s and delete spec.replicas there, or the next apply scales it down to 1",
			what, strings.Join(names, ", "), obj.Kind, n, inert.Code("kubectl apply edit-last-applied "+ref))
		return []checks.Finding{checks.At(obj, path, msg).WithFix("remove replicas (the HPA owns the scale; see the message for the kubectl apply edit-last-applied step)", checks.DeleteOp(path))}
	},
}
