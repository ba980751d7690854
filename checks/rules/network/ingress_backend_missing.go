package network

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var ingressBackendMissing = &checks.Rule{
	ID:       "ingress-backend-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/services-networking/ingress/#the-ingress-resource",
	Why:      "an Ingress backend names a Service that is not in the repo: the route answers 503",
	Help:     "Services are looked for in the Ingress's deployment unit, then in the whole repository, in a namespace the Ingress may share. Units that run operators (which create Services at run time) and units without any Service (the Ingress fronts Services deployed elsewhere) are skipped.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		in := readIngress(obj)
		if in == nil || obj.Patch || len(in.Backends) == 0 {
			return nil
		}
		if unitCreatesPodsAtRunTime(ctx, ctx.Unit(obj)) {
			return nil
		}
		names := map[string]bool{}
		unitHasServices := false
		for _, s := range ctx.ByKind("Service") {
			if ctx.SameNamespace(obj, s) {
				names[s.Name] = true
			}
			unitHasServices = unitHasServices || ctx.Unit(s) == ctx.Unit(obj)
		}
		if !unitHasServices {
			return nil // an Ingress for Services deployed elsewhere (a Helm chart, another repo)
		}
		var out []checks.Finding
		seen := map[string]bool{}
		for _, b := range in.Backends {
			if names[b.Service] || seen[b.Service] || manifest.IsPlaceholder(b.Service) || imagePlaceholder(b.Service) {
				continue
			}
			seen[b.Service] = true
			out = append(out, checks.At(obj, b.Path, fmt.Sprintf("Ingress %q routes to Service %q, which is not in the repository: requests get 503 until it exists (check the name, or add the Service)", obj.Name, b.Service)))
		}
		return out
	},
}
