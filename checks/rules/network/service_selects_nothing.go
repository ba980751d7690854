package network

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var serviceSelectsNothing = &checks.Rule{
	ID:       "service-selects-nothing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/tasks/debug/debug-application/debug-service/#does-the-service-have-any-endpointslices",
	Why:      "a Service whose selector matches no workload has no endpoints: traffic to it fails",
	Help:     "Workloads are looked for in the Service's deployment unit, then in the whole repository (overlays keep them in a base), in a namespace the Service may share; workloads that do not decode count by the labels written in their template. Skipped: Services without a selector (endpoints managed by hand); selector keys that controllers add to pods at run time (statefulset.kubernetes.io/pod-name, job-name, pod-template-hash, …), and keys no manifest of the repository sets on any pod template (a controller or operator adds them); deployment units that run operators, Helm releases or GitOps applications (custom resources whose pods are created at run time); and units with no workloads at all (a Service for pods a chart or another repository deploys).",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		svc, ok := obj.Typed().(*corev1.Service)
		if !ok || len(svc.Spec.Selector) == 0 || svc.Spec.Type == corev1.ServiceTypeExternalName || obj.Patch {
			return nil
		}
		for k, v := range svc.Spec.Selector {
			if manifest.IsPlaceholder(k) || manifest.IsPlaceholder(v) || strings.Contains(v, "$") {
				return nil
			}
		}
		sel := map[string]string{}
		for k, v := range svc.Spec.Selector {
			if !runtimePodLabels[k] {
				sel[k] = v
			}
		}
		if len(sel) == 0 {
			return nil // only labels that controllers add to pods at run time
		}
		known := podLabelKeys.Of(ctx)
		for k := range sel {
			if !known.keys[k] {
				return nil // no manifest sets this key: a controller puts it on the pods at run time
			}
		}
		unit := ctx.Unit(obj)
		if unitCreatesPodsAtRunTime(ctx, unit) {
			return nil
		}
		// The deployment unit first, then the whole repo (overlays keep
		// their workloads in a base folder).
		idx := podLabelIndex.Of(ctx)
		for _, w := range idx.candidates(sel) {
			if ctx.SameNamespace(obj, w) && checks.MapSelectorMatches(sel, idx.labels[w]) {
				return nil
			}
		}
		if !idx.units[unit] {
			return nil // a Service for pods deployed elsewhere (a Helm chart, another repo)
		}
		msg := fmt.Sprintf("Service %q selects %s, which no workload's pod labels match: it has no endpoints (check the labels against the workload's template)", obj.Name, formatSelector(svc.Spec.Selector))
		if r := namingRollout(ctx, obj); r != nil {
			msg += fmt.Sprintf("; Rollout %q names it in its strategy, and Argo Rollouts marks the Rollout InvalidSpec while a Service it names has a selector label its pod template lacks", r.Name)
		}
		return []checks.Finding{checks.At(obj, manifest.Path{"spec", "selector"}, msg)}
	},
	// Read on every Service with a selector, in every run (not recalled).
	Indexes: []checks.Prebuilt{podLabelKeys, podLabelIndex, unitsCreatingPods},
}

// namingRollout returns an Argo Rollout of svc's namespace whose strategy
// names svc (canary, stable, active or preview Service), or nil. Argo adds
// rollouts-pod-template-hash to such a Service's selector at run time (a
// key left out of the match, as every run-time label is), and refuses a
// Rollout whose named Service selects labels its pods do not carry.
func namingRollout(ctx *checks.Context, svc *manifest.Object) *manifest.Object {
	for _, o := range ctx.ByKind("Rollout") {
		r := o.Rollout()
		if r == nil || !ctx.SameNamespace(o, svc) {
			continue
		}
		for _, name := range r.Services() {
			if name == svc.Name {
				return o
			}
		}
	}
	return nil
}

// podLabelSet is the run's whole workloads (as podLabels sees them)
// indexed by pod label, and the units that hold any.
type podLabelSet struct {
	labels map[*manifest.Object]map[string]string
	byPair map[labelPair][]*manifest.Object // in run order
	units  map[string]bool
}

// candidates returns the workloads carrying the rarest pair of sel.
func (s *podLabelSet) candidates(sel map[string]string) []*manifest.Object {
	var best []*manifest.Object
	first := true
	for k, v := range sel {
		if l := s.byPair[labelPair{k, v}]; first || len(l) < len(best) {
			best, first = l, false
		}
	}
	return best
}

// podLabelIndex is the run's pod labels of whole workloads, by workload and
// by label.
var podLabelIndex = checks.NewIndex(func(ctx *checks.Context) *podLabelSet {
	s := &podLabelSet{labels: map[*manifest.Object]map[string]string{}, byPair: map[labelPair][]*manifest.Object{}, units: map[string]bool{}}
	for _, w := range ctx.Objects() {
		lbls, ok := podLabels(w)
		if !ok || w.Patch {
			continue
		}
		s.units[ctx.Unit(w)] = true
		s.labels[w] = lbls
		for k, v := range lbls {
			s.byPair[labelPair{k, v}] = append(s.byPair[labelPair{k, v}], w)
		}
	}
	return s
})

// formatSelector renders a map selector as "app=web, tier=front" in key order.
func formatSelector(sel map[string]string) string {
	keys := make([]string, 0, len(sel))
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, strconv.Quote(k+"="+sel[k]))
	}
	return strings.Join(parts, ", ")
}

// unitCreatesPodsAtRunTime reports whether a deployment unit holds
// objects that make pods (and Services) at run time: custom resources of an
// operator, Helm releases and GitOps applications. The custom-resource
// workloads the checks decode (Argo Rollouts, OpenKruise, Knative Services)
// are not among them: their pods carry their template's labels, which are
// in the repository.
func unitCreatesPodsAtRunTime(ctx *checks.Context, unit string) bool {
	return unitsCreatingPods.Of(ctx)[unit]
}

// unitsCreatingPods holds the units unitCreatesPodsAtRunTime answers
// true for, found once per run: asked per Service, a scan of the unit
// would cost the square of one large file's objects (a rendered chart is
// one unit).
var unitsCreatingPods = checks.NewIndex(func(ctx *checks.Context) map[string]bool {
	units := map[string]bool{}
	for _, o := range ctx.Objects() {
		if o.Kind != "" && o.APIVersion != "" && isCustomResource(o) && !passiveKinds[o.Kind] && !manifest.IsCustomWorkload(o.APIVersion, o.Kind) {
			units[ctx.Unit(o)] = true
		}
	}
	return units
})

// isCustomResource reports whether o is an object of a non-built-in API
// (an operator's custom resource), not counting kustomize and other
// build-time configuration kinds.
func isCustomResource(o *manifest.Object) bool {
	if checks.IsKustomization(o) || o.Kind == "CustomResourceDefinition" {
		return false
	}
	group := ""
	if i := strings.LastIndex(o.APIVersion, "/"); i >= 0 {
		group = o.APIVersion[:i]
	}
	if kube.BuiltinGroups[group] {
		return false
	}
	switch {
	case group == "" && !strings.Contains(o.APIVersion, "/"): // core v1
		return false
	case strings.HasPrefix(group, "kustomize.config.k8s.io"), strings.HasSuffix(group, "config.k8s.io"),
		group == "kubeadm.k8s.io", group == "skaffold", strings.HasPrefix(o.APIVersion, "skaffold/"):
		return false
	}
	return true
}

// runtimePodLabels are pod labels that controllers add at run time, so a
// Service may select them although no template carries them.
var runtimePodLabels = map[string]bool{
	"statefulset.kubernetes.io/pod-name": true, "apps.kubernetes.io/pod-index": true,
	"controller-revision-hash": true, "pod-template-hash": true, "pod-template-generation": true,
	"job-name": true, "batch.kubernetes.io/job-name": true, "controller-uid": true,
	"batch.kubernetes.io/controller-uid": true, "batch.kubernetes.io/job-completion-index": true,
	"jobset.sigs.k8s.io/jobset-name": true, checks.RolloutHashLabel: true,
}

// workloadKinds are the kinds with a pod template and where its labels sit.
var workloadKinds = map[string]manifest.Path{
	"Pod": {"metadata", "labels"}, "Deployment": {"spec", "template", "metadata", "labels"},
	"StatefulSet": {"spec", "template", "metadata", "labels"}, "DaemonSet": {"spec", "template", "metadata", "labels"},
	"ReplicaSet": {"spec", "template", "metadata", "labels"}, "ReplicationController": {"spec", "template", "metadata", "labels"},
	"Job": {"spec", "template", "metadata", "labels"}, "CronJob": {"spec", "jobTemplate", "spec", "template", "metadata", "labels"},
	"Rollout": {"spec", "template", "metadata", "labels"}, "CloneSet": {"spec", "template", "metadata", "labels"},
}

// podLabels returns the labels a workload gives its pods: from the typed
// pod template, or from the node tree when the object did not decode (a
// schema error or a placeholder elsewhere in it).
func podLabels(o *manifest.Object) (map[string]string, bool) {
	if lbls, _, ok := o.PodMeta(); ok {
		return lbls, true
	}
	at, ok := workloadKinds[o.Kind]
	if !ok || o.Typed() != nil {
		return nil, false
	}
	n := o.Node(at...)
	if n == nil {
		return nil, true
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1].Value
	}
	return out, true
}

// passiveKinds are custom resource kinds known to create no pods or
// Services: configuration for certificates, routing and secrets.
// (Monitoring resources are not among them: a unit with ServiceMonitors
// often declares Services for exporters deployed by a chart or the cloud
// provider, e.g. kubernetes-examples' GKE-managed DCGM exporter.)
var passiveKinds = map[string]bool{
	"Certificate": true, "Issuer": true, "ClusterIssuer": true, "CertificateRequest": true,
	"VirtualService": true, "DestinationRule": true, "PeerAuthentication": true, "AuthorizationPolicy": true,
	"RequestAuthentication": true, "Sidecar": true, "ServiceEntry": true, "Telemetry": true, "EnvoyFilter": true,
	"HTTPRoute": true, "GRPCRoute": true, "TCPRoute": true, "TLSRoute": true, "ReferenceGrant": true,
	"Middleware": true, "IngressRoute": true, "TLSOption": true, "SealedSecret": true, "ExternalSecret": true,
	"SecretStore": true, "ClusterSecretStore": true, "VerticalPodAutoscaler": true, "ScaledObject": true,
	"ClusterPolicy": true, "Policy": true, "PolicyException": true, "BackendConfig": true, "FrontendConfig": true,
	"ManagedCertificate": true,
}

// checks.LabelPair is one key=value pod label.
type labelPair struct{ k, v string }
