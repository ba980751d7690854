package faulttolerance

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
	appsv1 "k8s.io/api/apps/v1"
)

// tscAfter are the pod spec keys a new topologySpreadConstraints list goes after.
var tscAfter = []string{"containers", "volumes", "nodeSelector", "affinity", "tolerations"}

var spreadMissing = &checks.Rule{
	ID:       "spread-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/",
	Why:      "replicas with no podAntiAffinity or topologySpreadConstraint may all land on one node, which takes them all down at once",
	Help: "Add a topologySpreadConstraint on kubernetes.io/hostname with whenUnsatisfiable: ScheduleAnyway (it spreads when it can and never blocks scheduling). " +
		"For Deployments on Kubernetes 1.27+, matchLabelKeys: [pod-template-hash] makes it count only the pods of the current rollout (for an Argo Rollout, rollouts-pod-template-hash).",
	Check: spreadablePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		if spreadOf(pt.Spec).nodes {
			return nil
		}
		path := pt.SpecPath.Child("topologySpreadConstraints")
		f := checks.At(obj, path, fmt.Sprintf("%s runs more than one replica but has no podAntiAffinity on %s and no topologySpreadConstraint: all replicas may land on one node", obj.Kind, hostnameKey))
		if v, ok := spreadConstraint(ctx, obj, hostnameKey, ""); ok {
			f = f.WithFix("spread the pods over nodes (ScheduleAnyway: never blocks scheduling)", appendTSC(path, v))
			// Pods spread over nodes are what spread-zone-missing asks
			// to spread over zones too: that finding comes after this
			// fix, and rendering a chart or overlay again with the fix
			// does not count it against it.
			f.Fix.FollowUps = []string{"spread-zone-missing"}
		}
		return []checks.Finding{f}
	}),
}

var spreadZoneMissing = &checks.Rule{
	ID:       "spread-zone-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/setup/best-practices/multiple-zones/",
	Why:      "the replicas are spread over nodes but not over zones, so one zone outage can take them all down",
	Help:     "Add a topologySpreadConstraint on topology.kubernetes.io/zone with whenUnsatisfiable: ScheduleAnyway (harmless on single-zone clusters).",
	Check: spreadablePods(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		s := spreadOf(pt.Spec)
		if !s.declared || s.zones {
			return nil
		}
		path := pt.SpecPath.Child("topologySpreadConstraints")
		f := checks.At(obj, path, fmt.Sprintf("%s spreads its replicas over nodes but not over zones (%s): one zone outage can take them all down", obj.Kind, zoneKey))
		var from string
		if s.hostTSC >= 0 {
			from = tscSelectorFrom(obj, path.Child(manifest.Index(s.hostTSC)))
		}
		if v, ok := spreadConstraint(ctx, obj, zoneKey, from); ok {
			f = f.WithFix("also spread the pods over zones (ScheduleAnyway: never blocks scheduling)", appendTSC(path, v))
		}
		return []checks.Finding{f}
	}),
}

// spreadablePods returns a rule's Check that calls check with the pod
// template of each whole workload that runs more than one pod: only those
// have replicas to spread.
func spreadablePods(check kube.PodCheck) func(*checks.Context, *manifest.Object) []checks.Finding {
	return kube.OnPodTemplates(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		if partial(obj) || !multiReplica(ctx, obj) {
			return nil
		}
		fs := check(ctx, obj, pt)
		if cause := replicasCause(ctx, obj); cause != "" {
			for i := range fs {
				fs[i].Cause = cause
			}
		}
		return fs
	})
}

// multiReplica reports whether w runs more than one pod: replicas > 1, or
// an HPA whose minReplicas > 1 (for a Deployment an Argo Rollout's
// workloadRef names, the Rollout's).
func multiReplica(ctx *checks.Context, w *manifest.Object) bool {
	if r := kube.ReferencingRollout(ctx, w); r != nil {
		w = r // a Rollout's workloadRef Deployment: the Rollout runs its pods
	}
	if !hasReplicas(w) {
		return false
	}
	n, _ := w.Replicas()
	m, _ := hpaMin(ctx, w)
	return n > 1 || m > 1
}

func appendTSC(path manifest.Path, v string) edit.Op {
	op := checks.AppendOp(path, v)
	op.After = tscAfter
	return op
}

// tscSelectorFrom returns the labelSelector and matchLabelKeys of an
// existing constraint as YAML, to reuse for a new one.
func tscSelectorFrom(obj *manifest.Object, tsc manifest.Path) string {
	var b strings.Builder
	for _, k := range []string{"labelSelector", "matchLabelKeys"} {
		n := obj.BlockCopy(tsc.Child(k)...)
		if n == nil {
			continue
		}
		s, ok := kube.EncodeYAML(n)
		if !ok {
			return ""
		}
		b.WriteString(k + ":\n" + indent(s, 2))
	}
	return b.String()
}

// spreadConstraint renders one topologySpreadConstraints entry for key.
// selector, when given, is the labelSelector/matchLabelKeys YAML to reuse;
// else it is built from spec.selector (plus matchLabelKeys for Deployments
// on 1.27+).
func spreadConstraint(ctx *checks.Context, obj *manifest.Object, key, selector string) (string, bool) {
	if selector == "" {
		sel, ok := selectorYAML(obj)
		if !ok {
			return "", false
		}
		selector = "labelSelector:\n" + indent(sel, 2)
		if key := revisionLabel(obj); key != "" && ctx.Config.TargetMinor() >= 27 {
			selector += "matchLabelKeys:\n  - " + key + "\n"
		}
	}
	return fmt.Sprintf("maxSkew: 1\ntopologyKey: %s\nwhenUnsatisfiable: ScheduleAnyway\n%s", key, selector), true
}

// revisionLabel returns the label a workload's controller puts on the pods
// of one revision, for matchLabelKeys: pod-template-hash on a Deployment's,
// rollouts-pod-template-hash on an Argo Rollout's; "" for other kinds.
func revisionLabel(w *manifest.Object) string {
	switch w.Typed().(type) {
	case *appsv1.Deployment:
		return "pod-template-hash"
	case *manifest.Rollout:
		return checks.RolloutHashLabel
	}
	return ""
}
