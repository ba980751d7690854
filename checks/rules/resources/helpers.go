package resources

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/prodready/prodready/checks/manifest"
)

const section = "4. Resources"

// amount returns the quantity of resource name in list, and whether it is set.
func amount(list corev1.ResourceList, name corev1.ResourceName) (resource.Quantity, bool) {
	q, ok := list[name]
	return q, ok
}

// limitRangeDefaults reports whether a LimitRange that may apply to the
// object's namespace gives containers a default request or a default limit
// for resource name. A default limit also defaults the request.
func limitRangeDefaults(ctx *checks.Context, obj *manifest.Object, name corev1.ResourceName) (request, limit bool) {
	for _, lo := range ctx.ByKind("LimitRange") {
		lr, ok := lo.Typed().(*corev1.LimitRange)
		if !ok || !sameNamespace(ctx, lo, obj) {
			continue
		}
		for _, item := range lr.Spec.Limits {
			if item.Type != corev1.LimitTypeContainer {
				continue
			}
			if _, ok := item.Default[name]; ok {
				request, limit = true, true
			}
			if _, ok := item.DefaultRequest[name]; ok {
				request = true
			}
		}
	}
	return request, limit
}

// sameNamespace is SameNamespace, but two objects that both have no known
// namespace must also share a deployment unit: a LimitRange in one app's
// folder does not apply to another app.
func sameNamespace(ctx *checks.Context, a, b *manifest.Object) bool {
	na, nb := ctx.Namespace(a), ctx.Namespace(b)
	if na == "" && nb == "" {
		return ctx.Unit(a) == ctx.Unit(b)
	}
	return ctx.SameNamespace(a, b)
}

// qtyText returns the text of the quantity node at p, or the canonical
// form of q when the node is not a plain scalar.
func qtyText(obj *manifest.Object, p manifest.Path, q resource.Quantity) string {
	if v, ok := obj.Scalar(p...); ok && v != "" {
		if _, err := resource.ParseQuantity(v); err == nil {
			return v
		}
	}
	return q.String()
}

// namespacePolicyCheck is the body of namespace-limitrange-missing and
// namespace-resourcequota-missing: a Namespace of the repo with workloads
// and no object of kind in it.
func namespacePolicyCheck(ctx *checks.Context, obj *manifest.Object, kind, what string) []checks.Finding {
	if _, ok := obj.Typed().(*corev1.Namespace); !ok || obj.Name == "" {
		return nil
	}
	ws := kube.NamespaceWorkloads(ctx, obj.Name)
	if len(ws) == 0 {
		return nil
	}
	for _, o := range ctx.ByKind(kind) {
		// One with no known namespace may be this namespace's when it sits
		// in the Namespace's deployment unit.
		if ns := ctx.Namespace(o); ns == obj.Name || (ns == "" && ctx.Unit(o) == ctx.Unit(obj)) {
			return nil
		}
	}
	return []checks.Finding{checks.At(obj, nil, fmt.Sprintf("namespace %q holds %d workload(s) in the repo but no %s: %s", obj.Name, len(ws), kind, what))}
}

// podLevel reports whether the pod-level resources (spec.resources) set a
// request or limit for name: the pod's budget then covers containers that
// set none.
func podLevel(pt *manifest.PodTemplate, name corev1.ResourceName) bool {
	if pt.Spec.Resources == nil {
		return false
	}
	_, req := pt.Spec.Resources.Requests[name]
	_, lim := pt.Spec.Resources.Limits[name]
	return req || lim
}

// ownResources returns the containers of obj's whole pod template whose own
// resources must set resource name: none when the pod sets it at pod level
// or a LimitRange of the namespace defaults it (its limit when limit is
// true, else its request), and none whose resources an overlay's patch sets.
func ownResources(ctx *checks.Context, obj *manifest.Object, name corev1.ResourceName, limit bool) []manifest.Container {
	pt := kube.WholePodTemplate(ctx, obj)
	if pt == nil || podLevel(pt, name) {
		return nil
	}
	if req, lim := limitRangeDefaults(ctx, obj, name); (limit && lim) || (!limit && req) {
		return nil
	}
	var out []manifest.Container
	for _, c := range pt.Containers() {
		if !kube.PatchSets(ctx, obj, c.Name, "resources") {
			out = append(out, c)
		}
	}
	return out
}

// noRequest reports whether c sets neither a request of resource name nor a
// limit, which would default the request.
func noRequest(c manifest.Container, name corev1.ResourceName) bool {
	_, hasReq := amount(c.Resources.Requests, name)
	_, hasLim := amount(c.Resources.Limits, name)
	return !hasReq && !hasLim
}
