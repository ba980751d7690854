package faulttolerance

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/prodready/prodready/checks/manifest"
)

// Topology keys that spread pods over nodes (a zone or region spread puts
// pods on different nodes too) and over zones.
const (
	hostnameKey = "kubernetes.io/hostname"
	zoneKey     = "topology.kubernetes.io/zone"
)

var (
	nodeKeys = map[string]bool{hostnameKey: true, zoneKey: true, "failure-domain.beta.kubernetes.io/zone": true,
		"topology.kubernetes.io/region": true, "failure-domain.beta.kubernetes.io/region": true}
	zoneKeys = map[string]bool{zoneKey: true, "failure-domain.beta.kubernetes.io/zone": true,
		"topology.kubernetes.io/region": true, "failure-domain.beta.kubernetes.io/region": true}
)

// hpasFor returns the autoscalers (HPAs, KEDA ScaledObjects) that scale w, scoped like
// kube.Scoped (an HPA named "frontend" in another example does not count).
func hpasFor(ctx *checks.Context, w *manifest.Object) []*manifest.Object {
	return kube.Scoped(ctx, w, ctx.HPAsFor(w))
}

// hpaMin returns the smallest minReplicas of the HPAs scaling w, and
// whether any does.
func hpaMin(ctx *checks.Context, w *manifest.Object) (int32, bool) {
	hs := hpasFor(ctx, w)
	if len(hs) == 0 {
		return 0, false
	}
	min := checks.HPAMin(hs[0])
	for _, h := range hs[1:] {
		if m := checks.HPAMin(h); m < min {
			min = m
		}
	}
	return min, true
}

// replicasOverridden reports whether the run sets w's replicas somewhere
// else: another object of the same kind and name as written (a kustomize
// patch or overlay) with a different spec.replicas, or the replicas:
// entry of a kustomization that builds w naming it. Then the count
// written in w is not the one applied. Never for an object of a render:
// the overlay's build applied its patches and replicas: entries, and each
// render is whole (another overlay's object of the same name is that
// overlay's); and a render's object is no patch of w (a repository that
// holds an all-in-one manifest beside the overlay it was built from).
func replicasOverridden(ctx *checks.Context, w *manifest.Object) bool {
	if checks.FromRender(w) {
		return false
	}
	mine, _ := replicasText(w)
	for _, o := range ctx.ByKindName(w.Kind, w.Name) {
		if o == w || checks.FromRender(o) || !ctx.SameNamespace(o, w) {
			continue
		}
		if r, ok := replicasText(o); ok && r != mine {
			return true
		}
	}
	for _, o := range ctx.Kustomizations() {
		if reps := o.Node("replicas"); reps != nil && ctx.KustomizationBuilds(o, w) {
			for _, item := range reps.Content {
				if _, v := manifest.MapEntry(item, "name"); v != nil && v.Value == w.Name {
					return true
				}
			}
		}
	}
	return false
}

// replicasText returns spec.replicas and whether it is set, from the
// typed value when there is one: rules of other objects ask this of every
// same-named object, and the typed value answers without the node tree.
func replicasText(o *manifest.Object) (string, bool) {
	if hasReplicas(o) {
		if n, set := o.Replicas(); set {
			return strconv.Itoa(int(n)), true
		}
		return "", false
	}
	return o.Scalar("spec", "replicas")
}

// isServing reports whether a Service of w's deployment unit selects its pods.
func isServing(ctx *checks.Context, w *manifest.Object) bool {
	return len(kube.ServingServices(ctx, w)) > 0
}

// replicasCause is what a finding that asks something of a workload's
// several replicas gives as its Cause: spec.replicas when w's own
// replicas, above one, are what makes it run several pods (no Rollout runs
// its pods and no HPA scales it); "" otherwise. A review of a chart whose
// pull request raises replicaCount comments on that values line.
func replicasCause(ctx *checks.Context, w *manifest.Object) string {
	if !hasReplicas(w) || kube.ReferencingRollout(ctx, w) != nil {
		return ""
	}
	if _, scaled := hpaMin(ctx, w); scaled {
		return ""
	}
	if n, set := w.Replicas(); !set || n < 2 {
		return ""
	}
	return "spec.replicas"
}

// hasReplicas reports whether w's kind has spec.replicas: the built-in
// replicated kinds, and the custom-resource workloads that behave like them
// (an Argo Rollout, an OpenKruise CloneSet or Advanced StatefulSet; not a
// Knative Service, which Knative's autoscaler scales).
func hasReplicas(w *manifest.Object) bool {
	switch w.LikeKind() {
	case manifest.LikeDeployment, manifest.LikeStatefulSet, manifest.LikeReplicaSet, manifest.LikeReplicationController:
		return true
	}
	return false
}

// podCount returns how many pods w runs at the least: the HPA's
// minReplicas when an HPA scales it, else spec.replicas (unset = 1); a bare
// Pod is 1. known is false for kinds whose pod count the manifest does not
// say (DaemonSet, Job, Knative Service). The pods of a Deployment that an
// Argo Rollout's workloadRef names are the Rollout's: its count.
func podCount(ctx *checks.Context, w *manifest.Object) (n int32, known bool) {
	if r := kube.ReferencingRollout(ctx, w); r != nil {
		w = r // a Rollout's workloadRef Deployment: the Rollout runs its pods
	}
	if m, ok := hpaMin(ctx, w); ok && hasReplicas(w) {
		return m, true
	}
	if hasReplicas(w) {
		if replicasOverridden(ctx, w) {
			return 0, false
		}
		r, _ := w.Replicas()
		return r, true
	}
	if _, ok := w.Typed().(*corev1.Pod); ok {
		return 1, true
	}
	return 0, false
}

// spread says how a pod template spreads its pods.
type spread struct {
	nodes, zones bool
	// declared is true when the spread is written (anti-affinity or a
	// constraint), not only implied by a host port.
	declared bool
	// hostTSC is the index of a topologySpreadConstraint on the hostname key, or -1.
	hostTSC int
}

// spreadOf reads podAntiAffinity (required and preferred) and
// topologySpreadConstraints. Any topologySpreadConstraint counts as a
// spread over nodes, as spread-missing says; anti-affinity counts when its key
// puts pods on different nodes; so does a host port.
func spreadOf(spec *corev1.PodSpec) spread {
	s := spread{hostTSC: -1}
	// Pods with a host port (hostNetwork makes every container port one)
	// never share a node: the scheduler spreads them already.
	for _, c := range spec.Containers {
		for _, p := range c.Ports {
			s.nodes = s.nodes || p.HostPort > 0 || (spec.HostNetwork && p.ContainerPort > 0)
		}
	}
	for i, t := range spec.TopologySpreadConstraints {
		s.nodes, s.declared = true, true
		if zoneKeys[t.TopologyKey] {
			s.zones = true
		}
		if t.TopologyKey == hostnameKey && s.hostTSC < 0 {
			s.hostTSC = i
		}
	}
	if a := spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		keys := []string{}
		for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			keys = append(keys, t.TopologyKey)
		}
		for _, t := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			keys = append(keys, t.PodAffinityTerm.TopologyKey)
		}
		for _, k := range keys {
			s.declared = s.declared || nodeKeys[k]
			s.nodes = s.nodes || nodeKeys[k]
			s.zones = s.zones || zoneKeys[k]
		}
	}
	return s
}

// selectorYAML renders the label selector a spread constraint or PDB for
// w's pods uses: spec.selector as written, else the template's labels.
func selectorYAML(w *manifest.Object) (string, bool) {
	if sel := w.Selector(); sel != nil && (len(sel.MatchLabels) > 0 || len(sel.MatchExpressions) > 0) {
		if n := w.BlockCopy("spec", "selector"); n != nil && len(n.Content) > 0 {
			if _, ok := w.Typed().(*corev1.ReplicationController); ok {
				return matchLabelsYAML(sel.MatchLabels), true
			}
			return kube.EncodeYAML(n)
		}
		if len(sel.MatchExpressions) == 0 {
			return matchLabelsYAML(sel.MatchLabels), true
		}
		return "", false
	}
	if pt := w.PodTemplate(); pt != nil && len(pt.Meta.Labels) > 0 {
		return matchLabelsYAML(pt.Meta.Labels), true
	}
	return "", false
}

func matchLabelsYAML(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("matchLabels:\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %s\n", edit.StringScalar(k), edit.StringScalar(m[k]))
	}
	return b.String()
}

// indent indents every non-empty line of s by n spaces.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// kindPath is where a finding about a whole object points: its kind line.
var kindPath = manifest.Path{"kind"}

// partial reports whether a workload is a fragment (a kustomize patch or
// component part): its pod template has no containers, which the API server
// would reject in a whole object. Rules judge whole objects only.
func partial(w *manifest.Object) bool {
	pt := w.PodTemplate()
	return pt == nil || len(pt.Spec.Containers) == 0
}

// intOrString shows a PodDisruptionBudget's minAvailable or maxUnavailable
// as written: a number as is, a string (a percentage, or anything else the
// file holds) quoted.
func intOrString(v *intstr.IntOrString) string {
	if v.Type == intstr.Int {
		return v.String()
	}
	return strconv.Quote(v.StrVal)
}
