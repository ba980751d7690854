package network

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

var statefulsetServiceNotHeadless = &checks.Rule{
	ID:       "statefulset-service-not-headless",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#stable-network-id",
	Why:      "a StatefulSet's pods get stable DNS names (pod-0.service) only from the headless Service its serviceName names",
	Help: "The Service named by spec.serviceName is looked for in the StatefulSet's deployment unit (or a folder above it), else among the Services whose namespace is known and equal to the StatefulSet's; one in another namespace does not count. " +
		"A headless Service has clusterIP: None; one with a cluster IP gives the Service a virtual IP but the pods no DNS names of their own. " +
		"A Service that a kustomize overlay adds to a base holding the StatefulSet (or a base adds to the overlay) counts; one of the same name in an unrelated folder with no namespace (another example) does not. " +
		"Skipped: StatefulSets without serviceName (they name no Service, and their pods need no DNS names), kustomize patches and placeholders. OpenKruise Advanced StatefulSets count.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		name, ok := statefulSetServiceName(obj)
		if !ok || name == "" || obj.Patch || manifest.IsPlaceholder(name) || strings.ContainsAny(name, "${}") {
			return nil
		}
		var named []*manifest.Object
		for _, s := range ctx.ByKindName("Service", name) {
			if _, ok := s.Typed().(*corev1.Service); ok && !s.Patch && ctx.SameNamespace(obj, s) {
				named = append(named, s)
			}
		}
		at := manifest.Path{"spec", "serviceName"}
		scoped := kube.Scoped(ctx, obj, named)
		if len(scoped) == 0 {
			// An overlay may add the Service to a base's StatefulSet, or
			// the other way round.
			builds := kustomizeBuilds.Of(ctx)
			for _, s := range named {
				if builds.includes(ctx.Unit(s), ctx.Unit(obj)) || builds.includes(ctx.Unit(obj), ctx.Unit(s)) {
					scoped = append(scoped, s)
				}
			}
		}
		if len(scoped) == 0 {
			return []checks.Finding{checks.At(obj, at, fmt.Sprintf("StatefulSet %q names Service %q in serviceName, but no Service of that name is in its deployment unit or namespace: its pods get no stable DNS names (%s-0.%s); add a headless Service (clusterIP: None) that selects them", obj.Name, name, obj.Name, name))}
		}
		if anyHeadless(scoped) {
			return nil
		}
		return []checks.Finding{checks.At(obj, at, fmt.Sprintf("StatefulSet %q names Service %q in serviceName, which is not headless (no clusterIP: None): its pods get no stable DNS names (%s-0.%s); make that Service headless, or add a headless one and name it here", obj.Name, name, obj.Name, name))}
	},
}

// statefulSetServiceName returns spec.serviceName of a StatefulSet (apps
// or OpenKruise's Advanced StatefulSet), and whether obj is one.
func statefulSetServiceName(obj *manifest.Object) (string, bool) {
	if sts, ok := obj.Typed().(*appsv1.StatefulSet); ok {
		return sts.Spec.ServiceName, true
	}
	if sts, ok := obj.Typed().(*manifest.AdvancedStatefulSet); ok {
		return sts.Spec.ServiceName, true
	}
	if obj.Kind == "StatefulSet" && strings.HasPrefix(obj.APIVersion, "apps.kruise.io/") {
		name, _ := obj.Scalar("spec", "serviceName") // a version not decoded, or one that did not decode
		return name, true
	}
	return "", false
}

// anyHeadless reports whether one of the Services is headless.
func anyHeadless(svcs []*manifest.Object) bool {
	for _, s := range svcs {
		if svc, ok := s.Typed().(*corev1.Service); ok && isHeadless(svc) {
			return true
		}
	}
	return false
}

// isHeadless reports whether a Service has no cluster IP (clusterIP: None).
func isHeadless(svc *corev1.Service) bool {
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return true
	}
	return len(svc.Spec.ClusterIPs) > 0 && svc.Spec.ClusterIPs[0] == corev1.ClusterIPNone
}
