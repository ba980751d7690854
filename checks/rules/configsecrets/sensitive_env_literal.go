package configsecrets

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var sensitiveEnvLiteral = &checks.Rule{
	ID:       "sensitive-env-literal",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/concepts/security/secrets-good-practices/",
	Why:      "an env var with a credential-like name has a literal value: the credential is in the repository, readable by everyone with access and kept in its history",
	Help:     "A placeholder (a whole ${VAR}, <value> or {{ template }}, or an upper-case identifier that spells the variable's name, as GOOGLE_API_KEY_VAL, or asks for a value, as YOUR_API_KEY) is info: nothing has leaked yet. Move the value to a Secret (created outside the repository, or encrypted with SOPS / Sealed Secrets), rotate it, and reference it with secretKeyRef or a mounted volume.",
	Check: kube.OnPodTemplatesSkippingPatches(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.AllContainers() {
			for i, e := range c.Env {
				if e.ValueFrom != nil || !credentialEnvName(e.Name) {
					continue
				}
				v := strings.TrimSpace(e.Value)
				if v == "" || varRef.MatchString(v) || strings.HasPrefix(v, "/") {
					continue // empty, built from another variable ($(VAR)), or a file path
				}
				if placeholderValue(e.Name, v) {
					// Nothing leaked yet: whoever fills it in would put the
					// credential in the manifest.
					msg := fmt.Sprintf("env var %q of container %q holds a placeholder, not yet a credential: fill it from a Secret with valueFrom.secretKeyRef (or mount the Secret), not by writing the credential here", e.Name, c.Name)
					out = append(out, checks.At(obj, c.Path.Child("env", manifest.Index(i), "value"), msg).WithSeverity(checks.Info))
					continue
				}
				// Never echo the value.
				msg := fmt.Sprintf("env var %q of container %q has a literal value: a credential in the manifest is readable by everyone with access to the repository and stays in its history. Rotate it, store it in a Secret, and use valueFrom.secretKeyRef (or mount the Secret)", e.Name, c.Name)
				out = append(out, checks.At(obj, c.Path.Child("env", manifest.Index(i), "value"), msg))
			}
		}
		return out
	}),
}
