package checks

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

var ingressHostDuplicate = &Rule{
	ID:       "ingress-host-duplicate",
	Section:  naSection,
	Severity: Warning,
	Why:      "two Ingresses claiming the same host and path fight over the route; which one wins depends on the controller (004: custom policy)",
	Help:     "Hosts reserved for documentation (example.com, .test, .local, and the docs' foo.bar.com) are skipped. Canary Ingresses (nginx.ingress.kubernetes.io/canary), Ingresses of different classes and copies of one Ingress (same name, or files in different folders under overlays/, environments/, envs/ or clusters/) do not count.",
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		in := naReadIngress(obj)
		if in == nil || obj.Patch || naIsCanary(obj) {
			return nil
		}
		class := naIngressClass(obj, in)
		var out []Finding
		reported := map[string]bool{}
		for _, p := range in.Paths {
			if p.Host == "" || naImagePlaceholder(p.Host) || naReservedHost(p.Host) || naDocsSampleHosts[p.Host] {
				continue
			}
			key := p.Host + naNormPath(p.Path)
			if reported[key] {
				continue
			}
			for _, other := range naIngresses(ctx) {
				if other == obj || other.Name == obj.Name || naIsCanary(other) || naOtherEnvironment(obj.File.Path, other.File.Path) {
					continue
				}
				oin := naReadIngress(other)
				if naIngressClass(other, oin) != class {
					continue
				}
				for _, op := range oin.Paths {
					if op.Host == p.Host && naNormPath(op.Path) == naNormPath(p.Path) {
						reported[key] = true
						break
					}
				}
				if reported[key] {
					line, _, _ := other.Pos("kind")
					out = append(out, At(obj, p.PathPath, fmt.Sprintf("host %s path %s is also claimed by Ingress %q (%s:%d): the controller picks one of them; keep the route in one Ingress", p.Host, naNormPath(p.Path), other.Name, other.File.Path, line)))
					break
				}
			}
		}
		return out
	},
}

// naIngresses returns every whole Ingress of the run.
func naIngresses(ctx *Context) []*manifest.Object {
	var out []*manifest.Object
	for _, o := range ctx.ByKind("Ingress") {
		if !o.Patch && naReadIngress(o) != nil {
			out = append(out, o)
		}
	}
	return out
}

// naIsCanary reports whether an Ingress is an ingress-nginx canary, which
// shares its host and path with the main Ingress on purpose.
func naIsCanary(o *manifest.Object) bool {
	return o.Annotations["nginx.ingress.kubernetes.io/canary"] == "true"
}

// naNormPath treats an empty path as "/".
func naNormPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// naDocsSampleHosts are the hosts the Kubernetes and ingress-nginx
// documentation uses in examples that are alternatives to each other, never
// deployed together.
var naDocsSampleHosts = map[string]bool{"foo.bar.com": true, "bar.foo.com": true}

// naOtherEnvironment reports whether two files sit in different folders
// right below the same overlays/, environments/, envs/ or clusters/ folder:
// variants of one app for different environments or clusters.
func naOtherEnvironment(a, b string) bool {
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
