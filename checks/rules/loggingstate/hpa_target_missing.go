package loggingstate

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

// scalableKinds are the kinds an HPA can scale that the checks know as
// workloads: the built-in ones, Argo Rollouts and OpenKruise CloneSets (an
// Advanced StatefulSet is a StatefulSet). HPAs aimed at other kinds
// (operators' resources) are not judged: their objects are often created
// at run time.
var scalableKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "ReplicaSet": true, "ReplicationController": true, "Rollout": true, "CloneSet": true}

var hpaTargetMissing = &checks.Rule{
	ID:       "hpa-target-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/workloads/autoscaling/horizontal-pod-autoscale/#how-does-a-horizontalpodautoscaler-work",
	Why:      "a HorizontalPodAutoscaler's (or KEDA ScaledObject's) scaleTargetRef names a workload that is not in the repository, so it scales nothing (a typo, or a renamed workload)",
	Help:     "Only targets the checks know as workloads are judged (Deployment, StatefulSet, ReplicaSet, ReplicationController, Argo Rollout, OpenKruise CloneSet). Skipped: a deployment unit with a Flux HelmRelease or an Argo CD Application, which deploy workloads that are in no manifest.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if (obj.Kind != "HorizontalPodAutoscaler" && !checks.IsKEDAScaledObject(obj)) || obj.Patch {
			return nil
		}
		kind, name := checks.HPATarget(obj)
		if !scalableKinds[kind] || name == "" || manifest.IsPlaceholder(name) {
			return nil
		}
		// The deployment unit first, then the whole repository: an overlay's
		// HPA may scale a Deployment of its base.
		for _, o := range ctx.ByKindName(kind, name) {
			if ctx.SameNamespace(o, obj) {
				return nil
			}
		}
		what := "the HPA"
		if checks.IsKEDAScaledObject(obj) {
			what = "the ScaledObject"
		}
		if releaseInUnit(ctx, obj) {
			return nil // a Helm release or GitOps application of its unit deploys workloads at run time
		}
		msg := fmt.Sprintf("scaleTargetRef names %q %q, which is not in the repository: %s scales nothing (check the name, or add the workload)", kind, name, what)
		return []checks.Finding{checks.At(obj, manifest.Path{"spec", "scaleTargetRef", "name"}, msg)}
	},
}

// releaseInUnit reports whether obj's deployment unit holds a Flux
// HelmRelease or an Argo CD Application: they deploy workloads that are in
// no manifest of the repository (a ScaledObject beside the HelmRelease of
// the chart whose Deployment it scales).
func releaseInUnit(ctx *checks.Context, obj *manifest.Object) bool {
	unit := ctx.Unit(obj)
	for _, kind := range []string{"HelmRelease", "Application"} {
		for _, o := range ctx.ByKind(kind) {
			if ctx.Unit(o) == unit && (strings.HasPrefix(o.APIVersion, "helm.toolkit.fluxcd.io/") || strings.HasPrefix(o.APIVersion, "argoproj.io/")) {
				return true
			}
		}
	}
	return false
}
