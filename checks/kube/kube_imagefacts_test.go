package kube

import (
	"testing"

	"github.com/prodready/prodready/checks/manifest"

	corev1 "k8s.io/api/core/v1"
)

func TestFacts(t *testing.T) {
	port := func(p int32) []corev1.ContainerPort { return []corev1.ContainerPort{{ContainerPort: p}} }
	env := func(names ...string) []corev1.EnvVar {
		var out []corev1.EnvVar
		for _, n := range names {
			out = append(out, corev1.EnvVar{Name: n, Value: "x"})
		}
		return out
	}
	for _, tc := range []struct {
		c      corev1.Container
		family string
		user   int64
		byEnv  bool
	}{
		{corev1.Container{Image: "prom/prometheus:v2.26.0"}, "prometheus", 65534, false},
		{corev1.Container{Image: "postgres:15-alpine"}, "postgres", 70, false},
		{corev1.Container{Image: "postgres:9.5"}, "postgres", 999, false},
		{corev1.Container{Image: "registry.k8s.io/nginx-slim:0.8"}, "nginx", 0, false},
		{corev1.Container{Image: "nginx/nginx-ingress:4.0.0"}, "", 0, false}, // the controller, not the stock server
		{corev1.Container{Image: "wavefronthq/proxy:latest"}, "a JVM", 0, false},
		{corev1.Container{Image: "ghcr.io/acme/ledger-db:1", Env: env("POSTGRES_DB"), Ports: port(5432)}, "postgres", 999, true},
		{corev1.Container{Image: "ghcr.io/acme/ledgerwriter:1", Env: env("POSTGRES_DB")}, "", 0, false}, // a client: not on 5432
		{corev1.Container{Image: "ghcr.io/acme/carts:1", Env: env("JAVA_OPTS")}, "a JVM", 0, true},
	} {
		c := tc.c
		f, ok := Facts(nil, nil, manifest.Container{Container: &c})
		if f.Family != tc.family || ok != (tc.family != "") || f.User != tc.user || f.ByEnv != tc.byEnv {
			t.Errorf("Facts(%s, %v) = %q user %d byEnv %v, want %q user %d byEnv %v", c.Image, c.Env, f.Family, f.User, f.ByEnv, tc.family, tc.user, tc.byEnv)
		}
	}
}

func TestDatastoreUnderAnotherName(t *testing.T) {
	for image, want := range map[string]bool{
		"gcr.io/google_containers/heapster-influxdb-amd64:v1.1.1": true,
		"redis-stack:7":                     true,
		"oliver006/redis_exporter:v1":       false,
		"bitnami/redis-exporter:1":          false,
		"gcr.io/google_containers/heapster": false,
	} {
		c := corev1.Container{Image: image}
		if _, got := Datastore(nil, nil, manifest.Container{Container: &c}); got != want {
			t.Errorf("Datastore(%s) = %v, want %v", image, got, want)
		}
	}
}
