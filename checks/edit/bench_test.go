package edit

import (
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
