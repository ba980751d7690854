package configsecrets

import (
	"fmt"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	"github.com/prodready/prodready/checks/manifest"
)

var duplicateEnv = &checks.Rule{
	ID:       "duplicate-env",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://kubernetes.io/docs/tasks/inject-data-application/define-environment-variable-container/",
	Why:      "the same env var is set twice in one container: only the last one takes effect, silently, so the other value is a trap for whoever edits it",
	Check: kube.OnPodTemplatesSkippingPatches(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		var out []checks.Finding
		for _, c := range pt.AllContainers() {
			first := map[string]int{}
			for i, e := range c.Env {
				if e.Name == "" {
					continue
				}
				j, seen := first[e.Name]
				if !seen {
					first[e.Name] = i
					continue
				}
				msg := fmt.Sprintf("env var %q of container %q is already set at env[%d]: only the last one takes effect (remove one)", e.Name, c.Name, j)
				out = append(out, checks.At(obj, c.Path.Child("env", manifest.Index(i), "name"), msg))
			}
		}
		return out
	}),
}
