package kyverno

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var webhookFailClosedNotHA = &checks.Rule{
	ID:       "webhook-fail-closed-not-ha",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/cluster-administration/admission-webhooks-good-practices/#load-balancer-webhook",
	Why:      "a fail-closed admission webhook is served by a workload with fewer than 3 replicas, no PodDisruptionBudget or no spread: when it is down, every request it intercepts is rejected",
	Help:     "Follows clientConfig.service to the Service in the repository and to the workloads it selects. Error when the webhook intercepts pods or workload kinds (then no deployment can proceed while it is down), warning otherwise. Webhooks whose Service or workload is not in the repository are not judged.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, h := range hooks(obj) {
			if !h.FailClosed || h.Service == nil {
				continue
			}
			for _, w := range backingWorkloads(ctx, obj, h) {
				problems := haProblems(ctx, w)
				if len(problems) == 0 {
					continue
				}
				p := h.Path.Child("failurePolicy")
				if !obj.Has(p...) {
					p = h.Path
				}
				f := checks.At(obj, p, fmt.Sprintf("webhook %q fails closed, but %s %q behind Service %q %s: while it is down, every request the webhook intercepts is rejected; run 3 replicas with a PodDisruptionBudget and a topology spread", h.Name, w.Kind, w.Name, h.Service.Name, strings.Join(problems, ", ")))
				if interceptsWorkloads(h) {
					f = f.WithSeverity(checks.Error)
				}
				out = append(out, f)
			}
		}
		return out
	},
}

// backingWorkloads returns the long-running workloads behind a webhook's
// Service, in the Service's namespace.
func backingWorkloads(ctx *checks.Context, obj *manifest.Object, h hook) []*manifest.Object {
	var out []*manifest.Object
	seen := map[*manifest.Object]bool{}
	var services []*manifest.Object
	for _, s := range ctx.ByKind("Service") {
		if _, ok := s.Typed().(*corev1.Service); !ok || s.Name != h.Service.Name {
			continue
		}
		if ns := ctx.Namespace(s); ns != "" && h.Service.Namespace != "" && ns != h.Service.Namespace {
			continue
		}
		services = append(services, s)
	}
	// Match within the webhook's deployment unit first: a repository may
	// hold several copies of one install (per provider, per cluster).
	services = sameUnit(ctx, obj, services)
	for _, s := range services {
		svc := s.Typed().(*corev1.Service)
		for _, w := range sameUnit(ctx, s, ctx.Objects()) {
			pt := w.PodTemplate()
			if pt == nil || !w.IsLongRunning() || seen[w] || !ctx.SameNamespace(s, w) {
				continue
			}
			if _, ds := w.Typed().(*appsv1.DaemonSet); ds {
				continue // one pod per node: not a replica-count question
			}
			if checks.MapSelectorMatches(svc.Spec.Selector, pt.Meta.Labels) {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// haProblems lists what keeps a workload from surviving a node loss or
// a drain: fewer than 3 replicas, no PDB, no spread.
func haProblems(ctx *checks.Context, w *manifest.Object) []string {
	var out []string
	n, _ := w.Replicas()
	if c, ok := kustomizeReplicas(ctx, w); ok {
		n = c
	}
	if min, ok := ctx.HPAMinReplicas(w); ok {
		n = min
	}
	if _, isPod := w.Typed().(*corev1.Pod); isPod {
		n = 1
	}
	if n < 3 {
		out = append(out, fmt.Sprintf("runs %d replica(s)", n))
	}
	if len(ctx.PDBsFor(w)) == 0 {
		out = append(out, "has no PodDisruptionBudget")
	}
	pt := w.PodTemplate()
	spread := len(pt.Spec.TopologySpreadConstraints) > 0
	if a := pt.Spec.Affinity; a != nil && a.PodAntiAffinity != nil &&
		(len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 || len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0) {
		spread = true
	}
	if !spread {
		out = append(out, "has no topology spread or pod anti-affinity")
	}
	return out
}

// sameUnit keeps the objects in o's deployment unit, or all of them when
// none is.
func sameUnit(ctx *checks.Context, o *manifest.Object, objs []*manifest.Object) []*manifest.Object {
	var same []*manifest.Object
	unit := ctx.Unit(o)
	for _, x := range objs {
		if ctx.Unit(x) == unit {
			same = append(same, x)
		}
	}
	if len(same) > 0 {
		return same
	}
	return objs
}

// kustomizeReplicas returns the count a kustomization's replicas: field
// sets for w (kustomize overrides the manifest's spec.replicas).
func kustomizeReplicas(ctx *checks.Context, w *manifest.Object) (int32, bool) {
	for _, k := range ctx.Kustomizations() {
		dir := path.Dir(k.File.Path)
		if f := w.File.Path; f != dir && !strings.HasPrefix(f, dir+"/") && ctx.Unit(w) != ctx.Unit(k) {
			continue
		}
		reps := k.Node("replicas")
		if reps == nil {
			continue
		}
		for _, r := range reps.Content {
			_, name := manifest.MapEntry(r, "name")
			_, count := manifest.MapEntry(r, "count")
			if name == nil || count == nil || name.Value != w.Name {
				continue
			}
			if c, err := strconv.Atoi(count.Value); err == nil {
				return int32(c), true
			}
		}
	}
	return 0, false
}
