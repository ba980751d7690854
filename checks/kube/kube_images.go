package kube

import "strings"

// ImageBase returns an image reference's repository base name, lower case,
// without registry, path, tag or digest: "fluent-bit" for
// "cr.fluentbit.io/fluent/fluent-bit:3.1@sha256:…", "cart-db" for
// "ghcr.io/acme/cart-db:2.0.1". Rules that know images by name (datastores,
// log shippers, images that start as root or write their filesystem) match
// on it.
func ImageBase(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	base := image[strings.LastIndex(image, "/")+1:]
	if i := strings.Index(base, ":"); i >= 0 {
		base = base[:i]
	}
	return strings.ToLower(base)
}
