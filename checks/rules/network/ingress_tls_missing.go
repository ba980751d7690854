package network

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var ingressTLSMissing = &checks.Rule{
	ID:       "ingress-tls-missing",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/services-networking/ingress/#tls",
	Why:      "an Ingress host served without TLS sends traffic, cookies and credentials in clear text",
	Help:     "A host counts as covered when a spec.tls entry lists it (or a wildcard for it), when a tls entry lists no hosts, or when a controller annotation configures the certificate (AWS ALB, GCE, Traefik). Hosts under names reserved for documentation and local use (example.com, .test, .local, .localhost) are skipped.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		in := readIngress(obj)
		if in == nil || obj.Patch || tlsByAnnotation(obj) {
			return nil
		}
		var out []checks.Finding
		seen := map[string]bool{}
		for _, h := range in.Hosts {
			if seen[h.Host] || imagePlaceholder(h.Host) || reservedHost(h.Host) || tlsCovers(in.TLS, h.Host) {
				continue
			}
			seen[h.Host] = true
			out = append(out, checks.At(obj, h.HostPath, fmt.Sprintf("host %q has no TLS: add it to spec.tls with a certificate Secret (cert-manager can issue one)", h.Host)))
		}
		return out
	},
}

// tlsCovers reports whether the tls entries cover host.
func tlsCovers(tls [][]string, host string) bool {
	for _, hosts := range tls {
		if len(hosts) == 0 {
			return true // the controller's default certificate for every host
		}
		for _, t := range hosts {
			if strings.EqualFold(t, host) {
				return true
			}
			if strings.HasPrefix(t, "*.") {
				if i := strings.Index(host, "."); i > 0 && strings.EqualFold(host[i:], t[1:]) {
					return true
				}
			}
		}
	}
	return false
}

// tlsByAnnotation reports whether a controller annotation sets TLS up
// outside spec.tls.
func tlsByAnnotation(o *manifest.Object) bool {
	for k, v := range o.Annotations {
		switch k {
		case "alb.ingress.kubernetes.io/certificate-arn", "ingress.gcp.kubernetes.io/pre-shared-cert",
			"networking.gke.io/managed-certificates", "service.beta.kubernetes.io/aws-load-balancer-ssl-cert",
			"kubernetes.io/ingress.allow-http":
			if k != "kubernetes.io/ingress.allow-http" || v == "false" {
				return true
			}
		case "traefik.ingress.kubernetes.io/router.tls":
			if v == "true" {
				return true
			}
		}
	}
	return false
}
