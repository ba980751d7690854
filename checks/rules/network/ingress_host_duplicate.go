package network

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var ingressHostDuplicate = &checks.Rule{
	ID:       "ingress-host-duplicate",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://learnk8s.io/production-best-practices#governance",
	Why:      "two Ingresses claiming the same host and path fight over the route; which one wins depends on the controller",
	Help:     "Hosts reserved for documentation (example.com, .test, .local, and the docs' foo.bar.com) are skipped. Canary Ingresses (nginx.ingress.kubernetes.io/canary), Ingresses of different classes and copies of one Ingress (same name, or files in different folders under overlays/, environments/, envs/ or clusters/) do not count.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		in := readIngress(obj)
		if in == nil || obj.Patch || isCanary(obj) {
			return nil
		}
		class := ingressClass(obj, in)
		var out []checks.Finding
		reported := map[string]bool{}
		for _, p := range in.Paths {
			if p.Host == "" || imagePlaceholder(p.Host) || reservedHost(p.Host) || docsSampleHosts[p.Host] {
				continue
			}
			key := p.Host + normPath(p.Path)
			if reported[key] {
				continue
			}
			for _, other := range ingresses(ctx) {
				if other == obj || other.Name == obj.Name || isCanary(other) || otherEnvironment(obj.File.Path, other.File.Path) {
					continue
				}
				oin := readIngress(other)
				if ingressClass(other, oin) != class {
					continue
				}
				for _, op := range oin.Paths {
					if op.Host == p.Host && normPath(op.Path) == normPath(p.Path) {
						reported[key] = true
						break
					}
				}
				if reported[key] {
					line, _, _ := other.Pos("kind")
					out = append(out, checks.At(obj, p.PathPath, fmt.Sprintf("host %q path %q is also claimed by Ingress %q (%q line %d): the controller picks one of them; keep the route in one Ingress", p.Host, normPath(p.Path), other.Name, other.File.Path, line)))
					break
				}
			}
		}
		return out
	},
}

// ingresses returns every whole Ingress of the run.
func ingresses(ctx *checks.Context) []*manifest.Object {
	var out []*manifest.Object
	for _, o := range ctx.ByKind("Ingress") {
		if !o.Patch && readIngress(o) != nil {
			out = append(out, o)
		}
	}
	return out
}

// isCanary reports whether an Ingress is an ingress-nginx canary, which
// shares its host and path with the main Ingress on purpose.
func isCanary(o *manifest.Object) bool {
	return o.Annotations["nginx.ingress.kubernetes.io/canary"] == "true"
}

// normPath treats an empty path as "/".
func normPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// docsSampleHosts are the hosts the Kubernetes and ingress-nginx
// documentation uses in examples that are alternatives to each other, never
// deployed together.
var docsSampleHosts = map[string]bool{"foo.bar.com": true, "bar.foo.com": true}

// otherEnvironment reports whether two files sit in different folders
// right below the same overlays/, environments/, envs/ or clusters/ folder:
// variants of one app for different environments or clusters.
func otherEnvironment(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i+1 < len(as) && i+1 < len(bs); i++ {
		if as[i] != bs[i] {
			return false
		}
		switch as[i] {
		case "overlays", "environments", "envs", "clusters":
			if as[i+1] != bs[i+1] {
				return true
			}
		}
	}
	return false
}
