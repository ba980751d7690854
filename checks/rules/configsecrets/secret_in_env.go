package configsecrets

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/internal/inert"

	"github.com/prodready/prodready/checks/manifest"
)

var secretInEnv = &checks.Rule{
	ID:       "secret-in-env",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-files-from-a-pod",
	Why:      "a Secret is passed as environment variables, which leak through crash dumps, `env` in debug shells, child processes and logs, and do not update when the Secret changes; mount it as a volume instead",
	Check: kube.OnPodTemplatesSkippingPatches(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.AllContainers() {
			// One finding per Secret and container, at its first use.
			type use struct {
				path manifest.Path
				vars []string
				keys []string
			}
			uses := map[string]*use{}
			var order []string
			add := func(secret string, path manifest.Path, envName, key string) {
				u := uses[secret]
				if u == nil {
					u = &use{path: path}
					uses[secret] = u
					order = append(order, secret)
				}
				if envName != "" {
					u.vars = append(u.vars, envName)
				}
				if key != "" {
					u.keys = append(u.keys, key)
				}
			}
			for i, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					add(e.ValueFrom.SecretKeyRef.Name, c.Path.Child("env", manifest.Index(i), "valueFrom", "secretKeyRef"), e.Name, e.ValueFrom.SecretKeyRef.Key)
				}
			}
			for i, e := range c.EnvFrom {
				if e.SecretRef != nil {
					add(e.SecretRef.Name, c.Path.Child("envFrom", manifest.Index(i), "secretRef"), "", "")
				}
			}
			for _, secret := range order {
				u := uses[secret]
				how := "all its keys through envFrom"
				if len(u.vars) > 0 {
					how = "env vars " + strings.Join(u.vars, ", ")
				}
				vol := volumeName(secret)
				file := "<key>"
				if len(u.keys) > 0 {
					file = u.keys[0]
				}
				msg := fmt.Sprintf("container %q reads Secret %q as %s: environment variables leak through debug shells, crash dumps and child processes and do not update when the Secret changes. Mount it instead: add to the pod %s and to the container %s, then read %q", c.Name, secret, how, inert.Code(fmt.Sprintf("volumes: [{name: %s, secret: {secretName: %s}}]", vol, secret)), inert.Code(fmt.Sprintf("volumeMounts: [{name: %s, mountPath: /etc/secrets/%s, readOnly: true}]", vol, vol)), "/etc/secrets/"+vol+"/"+file)
				out = append(out, checks.At(obj, u.path, msg))
			}
		}
		return out
	}),
}
