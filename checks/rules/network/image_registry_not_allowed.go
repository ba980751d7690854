package network

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var imageRegistryNotAllowed = &checks.Rule{
	ID:       "image-registry-not-allowed",
	Section:  section,
	Severity: checks.Error,
	Ref:      "https://learnk8s.io/production-best-practices#governance",
	Why:      "an image from a registry the organisation does not allow",
	Help:     "Needs config: rules.image-registry-not-allowed.allowedRegistries lists registries (`ghcr.io`) or registry prefixes (`gcr.io/my-project`, `docker.io/library`). Does nothing while the list is empty. Images that a kustomization's `images:` rewrites (newName may move them) are skipped.",
	Params:   map[string]any{"allowedRegistries": []string{}},
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		allowed := configStrings(ctx.Config, "image-registry-not-allowed", "allowedRegistries")
		if len(allowed) == 0 {
			return nil
		}
		var out []checks.Finding
		containerImages(obj, func(c manifest.Container) {
			if imagePlaceholder(c.Image) || registryAllowed(c.Image, allowed) || ctx.KustomizeOverridesImage(obj, parseImage(c.Image).Name) {
				return // a kustomization's images: may point it at another registry (newName)
			}
			ref := parseImage(c.Image)
			out = append(out, checks.At(obj, c.Path.Child("image"), fmt.Sprintf("container %q pulls %q from %q, which is not among the allowed registries (%s)", c.Name, c.Image, ref.Registry, strings.Join(allowed, ", "))))
		})
		return out
	},
}

// registryAllowed reports whether image comes from one of the allowed
// registries or registry prefixes.
func registryAllowed(image string, allowed []string) bool {
	ref := parseImage(image)
	full := ref.Name
	if !strings.HasPrefix(full, ref.Registry+"/") {
		if !strings.Contains(full, "/") {
			full = "library/" + full
		}
		full = "docker.io/" + full
	}
	for _, a := range allowed {
		a = strings.TrimSuffix(strings.TrimSpace(a), "/")
		if a == "" {
			continue
		}
		if a == ref.Registry || strings.HasPrefix(full, a+"/") || full == a ||
			(ref.Registry == "docker.io" && (a == "index.docker.io" || a == "registry-1.docker.io")) {
			return true
		}
	}
	return false
}
