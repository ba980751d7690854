package kube

import "testing"

func TestImageBase(t *testing.T) {
	for image, want := range map[string]string{
		"cr.fluentbit.io/fluent/fluent-bit:3.1@sha256:0123": "fluent-bit",
		"ghcr.io/acme/Cart-DB:2.0.1":                        "cart-db",
		"localhost:5000/nginx":                              "nginx",
		"redis":                                             "redis",
		"mongo@sha256:abcd":                                 "mongo",
	} {
		if got := ImageBase(image); got != want {
			t.Errorf("ImageBase(%q) = %q, want %q", image, got, want)
		}
	}
}
