package configsecrets

import (
	"fmt"
	"sort"

	"github.com/prodready/prodready/checks"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var configmapSensitiveData = &checks.Rule{
	ID:       "configmap-sensitive-data",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/configmap/",
	Why:      "a ConfigMap holds a credential (a private key or token format: error; a credential-like key name: warning): ConfigMaps are not access-controlled or encrypted like Secrets, and the value is in the repository",
	Help:     "Move the value to a Secret (created outside the repository, or encrypted with SOPS / Sealed Secrets) and rotate it.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		cm, ok := obj.Typed().(*corev1.ConfigMap)
		if !ok || obj.Patch {
			return nil
		}
		keys := make([]string, 0, len(cm.Data))
		for k := range cm.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []checks.Finding
		for _, k := range keys {
			v := cm.Data[k]
			path := manifest.Path{"data", k}
			// Never echo the value, not even a part of it.
			if what := credentialFormat(v); what != "" {
				msg := fmt.Sprintf("ConfigMap key %q holds %s: ConfigMaps are readable by anyone who can read the namespace's configuration and are not encrypted at rest. Move it to a Secret and rotate it", k, what)
				out = append(out, checks.At(obj, path, msg))
				continue
			}
			if credentialKey(k) && !inertValue(v) {
				msg := fmt.Sprintf("ConfigMap key %q has a credential-like name and a value: if it is a credential, move it to a Secret and rotate it (ConfigMaps are not access-controlled or encrypted like Secrets)", k)
				out = append(out, checks.At(obj, path, msg).WithSeverity(checks.Warning))
			}
		}
		return out
	},
}
