package network

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var networkpolicyMissing = &checks.Rule{
	ID:       "networkpolicy-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/services-networking/network-policies/#default-policies",
	Why:      "a namespace defined in the repo runs workloads that no NetworkPolicy selects, so every pod may talk to them",
	Help:     "A NetworkPolicy with an empty podSelector (a default-deny) counts for every workload of its namespace; selectors use Kubernetes semantics; extensions/v1beta1 policies count. Cilium, Calico and AdminNetworkPolicy objects in the namespace count for all of it. The namespace's workloads are those nearest to the Namespace (its deployment unit, then the folders above it); when its own unit installs a Helm release or an operator and holds no workloads, its workloads are not in the repo and it is skipped.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Kind != "Namespace" || obj.APIVersion != "v1" || obj.Name == "" || obj.Patch || manifest.IsPlaceholder(obj.Name) {
			return nil
		}
		ns := obj.Name
		workloads := namespaceWorkloads(ctx, obj, ns)
		if len(workloads) == 0 {
			return nil
		}
		var policies []*networkingv1.NetworkPolicy
		for _, p := range ctx.Objects() {
			if !policyInNamespace(ctx, p, obj, ns) {
				continue
			}
			if np, ok := p.Typed().(*networkingv1.NetworkPolicy); ok {
				policies = append(policies, np)
				continue
			}
			if otherNetworkPolicy(p) || (p.Kind == "NetworkPolicy" && p.Typed() == nil) {
				return nil // Cilium / Calico / admin policies (their selectors are not Kubernetes label selectors), or a policy with placeholders: it may cover them
			}
		}
		var uncovered []string
		seen := map[string]bool{}
		for _, w := range workloads {
			pt := w.PodTemplate()
			covered := false
			for _, np := range policies {
				sel := np.Spec.PodSelector
				if checks.SelectorMatches(&sel, pt.Meta.Labels) {
					covered = true
					break
				}
			}
			if id := w.Kind + " " + strconv.Quote(w.Name); !covered && !seen[id] {
				seen[id] = true
				uncovered = append(uncovered, id)
			}
		}
		if len(uncovered) == 0 {
			return nil
		}
		sort.Strings(uncovered)
		what := "no NetworkPolicy"
		if len(policies) > 0 {
			what = "no NetworkPolicy selecting them"
		}
		if len(uncovered) > 5 {
			uncovered = append(uncovered[:5], fmt.Sprintf("and %d more", len(uncovered)-5))
		}
		msg := fmt.Sprintf("namespace %q has workloads with %s (%s): every pod may reach them. Start with a default-deny and allow what each app needs:\n"+
			"apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: default-deny\n  namespace: %q\nspec:\n  podSelector: {}\n  policyTypes: [Ingress, Egress]",
			ns, what, strings.Join(uncovered, ", "), ns)
		return []checks.Finding{checks.At(obj, nil, msg)} // nothing to point at inside the Namespace: its kind line
	},
}

// policyInNamespace reports whether policy object p applies in namespace
// ns: its effective namespace is ns, or it has none and sits in the
// Namespace's deployment unit.
func policyInNamespace(ctx *checks.Context, p, nsObj *manifest.Object, ns string) bool {
	if p.Patch {
		return false
	}
	switch pns := ctx.Namespace(p); {
	case pns == ns:
		return true
	case pns == "":
		return ctx.Unit(p) == ctx.Unit(nsObj)
	}
	return false
}

// otherNetworkPolicy reports whether o is a network policy of another
// engine (Cilium, Calico, AdminNetworkPolicy) that may cover the namespace.
func otherNetworkPolicy(o *manifest.Object) bool {
	group := o.APIVersion
	if i := strings.LastIndex(group, "/"); i >= 0 {
		group = group[:i]
	}
	switch {
	case group == "cilium.io" && strings.Contains(o.Kind, "NetworkPolicy"):
		return true
	case strings.HasSuffix(group, "projectcalico.org") && strings.Contains(o.Kind, "NetworkPolicy"):
		return true
	case group == "policy.networking.k8s.io":
		return true
	}
	return false
}

// namespaceWorkloads returns the workloads of namespace ns that belong
// with the Namespace object: those under the nearest folder above it that
// holds any (its deployment unit before the whole repo). When the
// Namespace's own unit holds none but deploys pods at run time (a Helm
// release, an operator's resources), the namespace's workloads are not in
// the repo and nil is returned.
func namespaceWorkloads(ctx *checks.Context, nsObj *manifest.Object, ns string) []*manifest.Object {
	var all []*manifest.Object
	for _, w := range wholeWorkloads.Of(ctx) {
		if ctx.Namespace(w) == ns {
			all = append(all, w)
		}
	}
	if len(all) == 0 {
		return nil
	}
	unit := ctx.Unit(nsObj)
	under := func(dir string) []*manifest.Object {
		var out []*manifest.Object
		for _, w := range all {
			if under(w.File.Path, dir) {
				out = append(out, w)
			}
		}
		return out
	}
	if ws := under(unit); len(ws) > 0 {
		return ws
	}
	if unitCreatesPodsAtRunTime(ctx, unit) {
		return nil
	}
	for dir := path.Dir(unit); ; dir = path.Dir(dir) {
		if ws := under(dir); len(ws) > 0 {
			return ws
		}
		if dir == "." || dir == "/" || dir == path.Dir(dir) {
			return nil
		}
	}
}

// under reports whether file lies in folder dir (at any depth).
func under(file, dir string) bool {
	if dir == "." || dir == "" {
		return !strings.HasPrefix(file, "/") && !strings.HasPrefix(file, "..")
	}
	return strings.HasPrefix(file, strings.TrimSuffix(dir, "/")+"/")
}
