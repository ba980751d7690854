package edit

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkApply measures a typical fix (two inserts and a replace) on one
// document of a 20-document file.
func BenchmarkApply(b *testing.B) {
	doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web # the app\n  labels:\n    app: web\nspec:\n  replicas: 1\n" +
		"  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        ports:\n        - containerPort: 8080\n"
	src := []byte(strings.Repeat(doc+"---\n", 19) + doc)
	ops := []Op{
		set("spec.replicas", "2"),
		{Action: Set, Path: split("spec.template.spec.containers.0.readinessProbe"), Value: "tcpSocket:\n  port: 8080\n", After: []string{"image", "ports"}},
		set("spec.template.spec.containers.0.securityContext.allowPrivilegeEscalation", "false"),
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Apply(src, 10, ops); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChanges measures turning that edit into suggestions.
func BenchmarkChanges(b *testing.B) {
	old := []byte(strings.Repeat("a: 1\nb:\n  c: 2\n", 200))
	new := []byte(strings.Replace(string(old), "c: 2\n", "c: 2\n  d: 3\n", 3))
	b.ReportAllocs()
	for b.Loop() {
		Changes(old, new)
	}
}

// BenchmarkApplyValues measures the claims check's values edit: one Set
// in a chart's large, commented values.yaml (one document, 4,000 lines).
func BenchmarkApplyValues(b *testing.B) {
	var sb strings.Builder
	for i := range 250 {
		fmt.Fprintf(&sb, "# -- Settings of component %d\ncomp%d:\n  enabled: true\n  # -- Its replicas\n  replicaCount: 1\n  image:\n    repository: example/c%d\n    tag: \"v1\"\n  resources: {}\n  podAnnotations: {}\n  env:\n    - name: A\n      value: \"1\"\n  service:\n    type: ClusterIP\n    port: 80\n", i, i, i)
	}
	src := []byte(sb.String())
	ops := []Op{set("comp120.replicaCount", "2")}
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Apply(src, 0, ops); err != nil {
			b.Fatal(err)
		}
	}
}
