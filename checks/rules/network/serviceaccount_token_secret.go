package network

import (
	"github.com/prodready/prodready/checks"
	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var serviceaccountTokenSecret = &checks.Rule{
	ID:       "serviceaccount-token-secret",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/secret/#serviceaccount-token-secrets",
	Why:      "a Secret of type kubernetes.io/service-account-token holds a token that never expires; use projected, short-lived tokens instead",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if obj.Kind != "Secret" || obj.APIVersion != "v1" {
			return nil
		}
		typ, _ := obj.Scalar("type")
		if s, ok := obj.Typed().(*corev1.Secret); ok {
			typ = string(s.Type)
		}
		if typ != string(corev1.SecretTypeServiceAccountToken) {
			return nil
		}
		return []checks.Finding{checks.At(obj, manifest.Path{"type"}, "a kubernetes.io/service-account-token Secret holds a long-lived token that never expires and survives pod restarts; use the pod's projected token, or `kubectl create token` for a short-lived one")}
	},
}
