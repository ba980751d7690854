package checks

import (
	"fmt"
	"strings"

	"github.com/prodready/prodready/checks/manifest"
)

var imageRegistryNotAllowed = &Rule{
	ID:       "image-registry-not-allowed",
	Section:  naSection,
	Severity: Error,
	Why:      "an image from a registry the organisation does not allow (004: custom policy on image sources)",
	Help:     "Needs config: rules.image-registry-not-allowed.allowedRegistries lists registries (`ghcr.io`) or registry prefixes (`gcr.io/my-project`, `docker.io/library`). Does nothing while the list is empty. Images that a kustomization's `images:` rewrites (newName may move them) are skipped.",
	Params:   map[string]any{"allowedRegistries": []string{}},
	Check: func(ctx *Context, obj *manifest.Object) []Finding {
		allowed := naConfigStrings(ctx.Config, "image-registry-not-allowed", "allowedRegistries")
		if len(allowed) == 0 {
			return nil
		}
		var out []Finding
		naContainerImages(obj, func(c manifest.Container) {
			if naImagePlaceholder(c.Image) || naRegistryAllowed(c.Image, allowed) || ctx.KustomizeOverridesImage(naParseImage(c.Image).Name) {
				return // a kustomization's images: may point it at another registry (newName)
			}
			ref := naParseImage(c.Image)
			out = append(out, At(obj, c.Path.Child("image"), fmt.Sprintf("container %q pulls %q from %s, which is not among the allowed registries (%s)", c.Name, c.Image, ref.Registry, strings.Join(allowed, ", "))))
		})
		return out
	},
}

// naRegistryAllowed reports whether image comes from one of the allowed
// registries or registry prefixes.
func naRegistryAllowed(image string, allowed []string) bool {
	ref := naParseImage(image)
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
