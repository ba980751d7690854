package kube

import (
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
	corev1 "k8s.io/api/core/v1"
)

// servingServices is ServingServices' answer for each workload, computed
// once per run: several rules of these families ask it.
var servingServices = checks.NewPerObject(func(ctx *checks.Context, w *manifest.Object) []*manifest.Object {
	var out []*manifest.Object
	for _, s := range Scoped(ctx, w, ctx.SelectingServices(w)) {
		if !metricsOnly(ctx, s) {
			out = append(out, s)
		}
	}
	return out
})

// ServingServices returns the Services that make w serving: those of its own
// deployment unit (or a folder above it) that select its pods, else
// Services elsewhere in the run whose namespace is known and equals w's. A
// Service in an unrelated folder with no namespace (another example,
// another version of the same app) does not count: "serving" is decided
// within the deployment unit (see Scoped).
//
// A Service that only exposes metrics (every port named like metrics, or an
// unnamed port on a Service named so) is for scraping, not for traffic: it
// does not make a controller or exporter serving.
func ServingServices(ctx *checks.Context, w *manifest.Object) []*manifest.Object {
	return servingServices.Of(ctx, w)
}

// metricsOnly reports whether a Service only exposes metrics (or
// profiling): every port is named so, or is a port a ServiceMonitor of the
// run scrapes.
func metricsOnly(ctx *checks.Context, s *manifest.Object) bool {
	svc, ok := s.Typed().(*corev1.Service)
	if !ok || len(svc.Spec.Ports) == 0 {
		return false
	}
	scraped := scrapedPorts(ctx, s)
	for _, p := range svc.Spec.Ports {
		if p.Name == "" {
			// An unnamed port: only a Service named for metrics says so
			// ("metrics-server" serves the metrics API, it is no scrape target).
			if n := strings.ToLower(s.Name); n != "metrics" && !strings.HasSuffix(n, "-metrics") {
				return false
			}
			continue
		}
		if !metricsName(p.Name) && !scraped[p.Name] {
			return false
		}
	}
	return true
}

// Scoped keeps the objects related to w that share its deployment unit
// (or sit in a folder above it: one Service file for several variants in
// subfolders); when there are none, those elsewhere in the run whose
// effective namespace is known and equal to w's. Objects in other folders with no namespace
// (other examples, other versions of the same app) are not related to w.
func Scoped(ctx *checks.Context, w *manifest.Object, all []*manifest.Object) []*manifest.Object {
	var out []*manifest.Object
	unit := ctx.Unit(w)
	for _, s := range all {
		if UnitCovers(ctx.Unit(s), unit) {
			out = append(out, s)
		}
	}
	if len(out) > 0 {
		return out
	}
	ns := ctx.Namespace(w)
	if ns == "" {
		return nil
	}
	for _, s := range all {
		if ctx.Namespace(s) == ns {
			out = append(out, s)
		}
	}
	return out
}

// scrapedPorts returns the port names of Service s that a Prometheus
// ServiceMonitor in the run scrapes.
func scrapedPorts(ctx *checks.Context, s *manifest.Object) map[string]bool {
	out := map[string]bool{}
	for _, m := range Scoped(ctx, s, ctx.ByKind("ServiceMonitor")) {
		if !strings.HasPrefix(m.APIVersion, "monitoring.coreos.com/") {
			continue
		}
		if ns := ctx.Namespace(m); ns != "" && ctx.Namespace(s) != "" && ns != ctx.Namespace(s) && !m.Has("spec", "namespaceSelector") {
			continue
		}
		sel := manifest.Path{"spec", "selector", "matchLabels"}
		want := m.Node(sel...)
		if want == nil || len(want.Content) == 0 {
			continue
		}
		match := true
		for i := 0; i+1 < len(want.Content); i += 2 {
			if s.Labels[want.Content[i].Value] != want.Content[i+1].Value {
				match = false
			}
		}
		if !match {
			continue
		}
		if eps := m.Node("spec", "endpoints"); eps != nil {
			for _, ep := range eps.Content {
				if _, v := manifest.MapEntry(ep, "port"); v != nil {
					out[v.Value] = true
				}
			}
		}
	}
	return out
}

func metricsName(n string) bool {
	n = strings.ToLower(n)
	for _, w := range []string{"metrics", "prometheus", "telemetry", "monitoring", "profiling", "pprof", "debug"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// UnitCovers reports whether an object of unit folder outer applies to
// one of unit folder inner: the same folder, or one above it.
func UnitCovers(outer, inner string) bool {
	if outer == inner || outer == "." || outer == "" {
		return true
	}
	return checks.UnderDir(inner, strings.TrimSuffix(outer, "/"))
}

// ShareNamespace reports whether a and b will share a namespace: both
// effective namespaces are known and equal, or one is unknown and the two
// sit in related deployment units (one folder, kustomization or chart, or
// one above the other). Objects of unrelated applications of a run that
// name no namespace are not related: each may be applied to a namespace
// of its own.
func ShareNamespace(ctx *checks.Context, a, b *manifest.Object) bool {
	na, nb := ctx.Namespace(a), ctx.Namespace(b)
	if na != "" && nb != "" {
		return na == nb
	}
	return checks.RelatedUnits(ctx.Unit(a), ctx.Unit(b))
}
