package network

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var ingressHostNotApproved = &checks.Rule{
	ID:       "ingress-host-not-approved",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://learnk8s.io/production-best-practices#governance",
	Why:      "an Ingress host outside the organisation's approved domains",
	Help:     "Needs config: rules.ingress-host-not-approved.approvedDomains lists domains; a host is approved when it is one of them or a subdomain. Does nothing while the list is empty.",
	Params:   map[string]any{"approvedDomains": []string{}},
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		domains := configStrings(ctx.Config, "ingress-host-not-approved", "approvedDomains")
		in := readIngress(obj)
		if len(domains) == 0 || in == nil || obj.Patch {
			return nil
		}
		var out []checks.Finding
		for _, h := range in.Hosts {
			if imagePlaceholder(h.Host) || hostApproved(h.Host, domains) {
				continue
			}
			out = append(out, checks.At(obj, h.HostPath, fmt.Sprintf("host %q is not in an approved domain (%s)", h.Host, strings.Join(domains, ", "))))
		}
		return out
	},
}

// hostApproved reports whether host is one of domains or below one.
func hostApproved(host string, domains []string) bool {
	h := strings.ToLower(strings.TrimPrefix(host, "*."))
	for _, d := range domains {
		d = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(d), "*."), "."))
		if d != "" && (h == d || strings.HasSuffix(h, "."+d)) {
			return true
		}
	}
	return false
}
