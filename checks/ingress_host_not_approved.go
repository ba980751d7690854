package checks

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

var ingressHostNotApproved = &Rule{
	ID:       "ingress-host-not-approved",
	Section:  naSection,
	Severity: Error,
	Why:      "an Ingress host outside the organisation's approved domains (004: custom policy)",
	Help:     "Needs config: rules.ingress-host-not-approved.approvedDomains lists domains; a host is approved when it is one of them or a subdomain. Does nothing while the list is empty.",
	Params:   map[string]any{"approvedDomains": []string{}},
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		domains := naConfigStrings(ctx.Config, "ingress-host-not-approved", "approvedDomains")
		in := naReadIngress(obj)
		if len(domains) == 0 || in == nil || obj.Patch {
			return nil
		}
		var out []Finding
		for _, h := range in.Hosts {
			if naImagePlaceholder(h.Host) || naHostApproved(h.Host, domains) {
				continue
			}
			out = append(out, At(obj, h.HostPath, fmt.Sprintf("host %s is not in an approved domain (%s)", h.Host, strings.Join(domains, ", "))))
		}
		return out
	},
}

// naHostApproved reports whether host is one of domains or below one.
func naHostApproved(host string, domains []string) bool {
	h := strings.ToLower(strings.TrimPrefix(host, "*."))
	for _, d := range domains {
		d = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(d), "*."), "."))
		if d != "" && (h == d || strings.HasSuffix(h, "."+d)) {
			return true
		}
	}
	return false
}
