package apicluster

import (
	"fmt"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var apiserverOIDCMissing = &checks.Rule{
	ID:       "apiserver-oidc-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/reference/access-authn-authz/authentication/#openid-connect-tokens",
	Why:      "people should log in through an identity provider (OIDC), not with shared certificates or tokens",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		for _, fs := range serverFlagSets(obj) {
			_, oidc := fs.Flags["oidc-issuer-url"]
			_, authn := fs.Flags["authentication-config"]
			if oidc || authn {
				continue
			}
			out = append(out, checks.At(obj, fs.Anchor, fmt.Sprintf("%s: neither --oidc-issuer-url nor --authentication-config: people cannot log in through an identity provider; configure OIDC (a structured --authentication-config on 1.30+)", fs.Label)))
		}
		return out
	},
}
