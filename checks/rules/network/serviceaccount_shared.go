package network

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var serviceaccountShared = &checks.Rule{
	ID:       "serviceaccount-shared",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/security/rbac-good-practices/#minimize-distribution-of-privileged-tokens",
	Why:      "one ServiceAccount used by several workloads gives each the permissions of all",
	Help:     "The default ServiceAccount is left to default-service-account. Copies of one workload in several overlays count once, and versions or parts of one app (same `app`, `k8s-app`, `app.kubernetes.io/name` or `app.kubernetes.io/instance` pod label and the same component) share on purpose; workloads are compared within one deployment unit.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := obj.PodTemplate()
		if pt == nil || obj.Patch {
			return nil
		}
		sa, path := serviceAccountName(pt)
		if sa == "default" || manifest.IsPlaceholder(sa) || strings.Contains(sa, "$") {
			return nil
		}
		scope := saScope(ctx, obj)
		others := map[string]bool{}
		self := obj.Kind + " " + obj.Name
		for _, w := range serviceAccountUsers.Of(ctx)[scope+"\x00"+sa] {
			if w == obj || sameApp(obj, w) {
				continue
			}
			if id := w.Kind + " " + strconv.Quote(w.Name); id != self {
				others[id] = true
			}
		}
		if len(others) == 0 {
			return nil
		}
		list := make([]string, 0, len(others))
		for o := range others {
			list = append(list, o)
		}
		sort.Strings(list)
		return []checks.Finding{checks.At(obj, path, fmt.Sprintf("ServiceAccount %q is also used by %s: each workload gets the permissions all of them need; give each its own ServiceAccount", sa, strings.Join(list, ", ")))}
	},
}

// saScope is where workloads share a ServiceAccount: one deployment unit
// and one namespace. (Workloads of other units are often alternative
// installs of the same app, never deployed together.)
func saScope(ctx *checks.Context, o *manifest.Object) string {
	return ctx.Unit(o) + "\x00" + ctx.Namespace(o)
}

// serviceAccountUsers indexes the run's whole workloads by scope and
// ServiceAccount name ("scope\x00name"), in run order.
var serviceAccountUsers = checks.NewIndex(func(ctx *checks.Context) map[string][]*manifest.Object {
	out := map[string][]*manifest.Object{}
	for _, w := range wholeWorkloads.Of(ctx) {
		name, _ := serviceAccountName(w.PodTemplate())
		key := saScope(ctx, w) + "\x00" + name
		out[key] = append(out[key], w)
	}
	return out
})

// sameApp reports whether two workloads are versions or parts of one app:
// their pods carry the same app name label and the same component.
func sameApp(a, b *manifest.Object) bool {
	la, lb := a.PodTemplate().Meta.Labels, b.PodTemplate().Meta.Labels
	if la["app.kubernetes.io/component"] != lb["app.kubernetes.io/component"] {
		return false
	}
	for _, k := range []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app", "k8s-app"} {
		if la[k] != "" && la[k] == lb[k] {
			return true
		}
	}
	return false
}
