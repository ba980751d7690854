package checks

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// Topology keys that spread pods over nodes (a zone or region spread puts
// pods on different nodes too) and over zones.
const (
	ftHostnameKey = "kubernetes.io/hostname"
	ftZoneKey     = "topology.kubernetes.io/zone"
)

var (
	ftNodeKeys = map[string]bool{ftHostnameKey: true, ftZoneKey: true, "failure-domain.beta.kubernetes.io/zone": true,
		"topology.kubernetes.io/region": true, "failure-domain.beta.kubernetes.io/region": true}
	ftZoneKeys = map[string]bool{ftZoneKey: true, "failure-domain.beta.kubernetes.io/zone": true,
		"topology.kubernetes.io/region": true, "failure-domain.beta.kubernetes.io/region": true}
)

// ftHPAsFor returns the HorizontalPodAutoscalers that scale w, scoped like
// ftScoped (an HPA named "frontend" in another example does not count).
func ftHPAsFor(ctx *Context, w *manifest.Object) []*manifest.Object {
	return ftScoped(ctx, w, ctx.HPAsFor(w))
}

// ftHPAMin returns the smallest minReplicas of the HPAs scaling w, and
// whether any does.
func ftHPAMin(ctx *Context, w *manifest.Object) (int32, bool) {
	hs := ftHPAsFor(ctx, w)
	if len(hs) == 0 {
		return 0, false
	}
	min := HPAMin(hs[0])
	for _, h := range hs[1:] {
		if m := HPAMin(h); m < min {
			min = m
		}
	}
	return min, true
}

// ftReplicasOverridden reports whether the run sets w's replicas somewhere
// else: another object of the same kind and name (a kustomize patch or
// overlay) with a different spec.replicas, or a kustomization's replicas:
// entry naming it. Then the count written in w is not the one applied.
func ftReplicasOverridden(ctx *Context, w *manifest.Object) bool {
	mine, _ := ftReplicasText(w)
	for _, o := range ctx.ByKindName(w.Kind, w.Name) {
		if o == w || !ctx.SameNamespace(o, w) {
			continue
		}
		if r, ok := ftReplicasText(o); ok && r != mine {
			return true
		}
	}
	for _, o := range ctx.Kustomizations() {
		if reps := o.Node("replicas"); reps != nil {
			for _, item := range reps.Content {
				if _, v := manifest.MapEntry(item, "name"); v != nil && v.Value == w.Name {
					return true
				}
			}
		}
	}
	return false
}

// ftReplicasText returns spec.replicas and whether it is set, from the
// typed value when there is one: rules of other objects ask this of every
// same-named object, and the typed value answers without the node tree.
func ftReplicasText(o *manifest.Object) (string, bool) {
	if ftHasReplicas(o) {
		if n, set := o.Replicas(); set {
			return strconv.Itoa(int(n)), true
		}
		return "", false
	}
	return o.Scalar("spec", "replicas")
}

// ftIsServing reports whether a Service of w's deployment unit selects its pods.
func ftIsServing(ctx *Context, w *manifest.Object) bool { return len(ftServicesFor(ctx, w)) > 0 }

// ftHasReplicas reports whether w's kind has spec.replicas.
func ftHasReplicas(w *manifest.Object) bool {
	switch w.Typed.(type) {
	case *appsv1.Deployment, *appsv1.StatefulSet, *appsv1.ReplicaSet, *corev1.ReplicationController:
		return true
	}
	return false
}

// ftPodCount returns how many pods w runs at the least: the HPA's
// minReplicas when an HPA scales it, else spec.replicas (unset = 1); a bare
// Pod is 1. known is false for kinds whose pod count the manifest does not
// say (DaemonSet, Job).
func ftPodCount(ctx *Context, w *manifest.Object) (n int32, known bool) {
	if m, ok := ftHPAMin(ctx, w); ok && ftHasReplicas(w) {
		return m, true
	}
	if ftHasReplicas(w) {
		if ftReplicasOverridden(ctx, w) {
			return 0, false
		}
		r, _ := w.Replicas()
		return r, true
	}
	if _, ok := w.Typed.(*corev1.Pod); ok {
		return 1, true
	}
	return 0, false
}

// ftKEDAScales reports whether a KEDA ScaledObject (which creates and owns
// an HPA) scales w.
func ftKEDAScales(ctx *Context, w *manifest.Object) bool {
	for _, s := range ctx.ByKind("ScaledObject") {
		if !strings.HasPrefix(s.APIVersion, "keda.sh/") || !ctx.SameNamespace(s, w) {
			continue
		}
		name, _ := s.Scalar("spec", "scaleTargetRef", "name")
		kind, _ := s.Scalar("spec", "scaleTargetRef", "kind")
		if kind == "" {
			kind = "Deployment"
		}
		if name == w.Name && kind == w.Kind {
			return true
		}
	}
	return false
}

// ftSpread says how a pod template spreads its pods.
type ftSpread struct {
	nodes, zones bool
	// declared is true when the spread is written (anti-affinity or a
	// constraint), not only implied by a host port.
	declared bool
	// hostTSC is the index of a topologySpreadConstraint on the hostname key, or -1.
	hostTSC int
}

// ftSpreadOf reads podAntiAffinity (required and preferred) and
// topologySpreadConstraints. Any topologySpreadConstraint counts as a
// spread over nodes, as RULES.md says; anti-affinity counts when its key
// puts pods on different nodes; so does a host port.
func ftSpreadOf(spec *corev1.PodSpec) ftSpread {
	s := ftSpread{hostTSC: -1}
	// Pods with a host port (hostNetwork makes every container port one)
	// never share a node: the scheduler spreads them already.
	for _, c := range spec.Containers {
		for _, p := range c.Ports {
			s.nodes = s.nodes || p.HostPort > 0 || (spec.HostNetwork && p.ContainerPort > 0)
		}
	}
	for i, t := range spec.TopologySpreadConstraints {
		s.nodes, s.declared = true, true
		if ftZoneKeys[t.TopologyKey] {
			s.zones = true
		}
		if t.TopologyKey == ftHostnameKey && s.hostTSC < 0 {
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
			s.declared = s.declared || ftNodeKeys[k]
			s.nodes = s.nodes || ftNodeKeys[k]
			s.zones = s.zones || ftZoneKeys[k]
		}
	}
	return s
}

// ftSelectorYAML renders the label selector a spread constraint or PDB for
// w's pods uses: spec.selector as written, else the template's labels.
func ftSelectorYAML(w *manifest.Object) (string, bool) {
	if sel := w.Selector(); sel != nil && (len(sel.MatchLabels) > 0 || len(sel.MatchExpressions) > 0) {
		if n := w.BlockCopy("spec", "selector"); n != nil && len(n.Content) > 0 {
			if _, ok := w.Typed.(*corev1.ReplicationController); ok {
				return ftMatchLabelsYAML(sel.MatchLabels), true
			}
			return hcEncode(n)
		}
		if len(sel.MatchExpressions) == 0 {
			return ftMatchLabelsYAML(sel.MatchLabels), true
		}
		return "", false
	}
	if pt := w.PodTemplate(); pt != nil && len(pt.Meta.Labels) > 0 {
		return ftMatchLabelsYAML(pt.Meta.Labels), true
	}
	return "", false
}

func ftMatchLabelsYAML(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("matchLabels:\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %s\n", yamlScalar(k), yamlScalar(m[k]))
	}
	return b.String()
}

// ftIndent indents every non-empty line of s by n spaces.
func ftIndent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// ftKindPath is where a finding about a whole object points: its kind line.
var ftKindPath = manifest.Path{"kind"}

// ftPartial reports whether a workload is a fragment (a kustomize patch or
// component part): its pod template has no containers, which the API server
// would reject in a whole object. Rules judge whole objects only.
func ftPartial(w *manifest.Object) bool {
	pt := w.PodTemplate()
	return pt == nil || len(pt.Spec.Containers) == 0
}
