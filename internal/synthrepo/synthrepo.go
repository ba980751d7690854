// Package synthrepo generates a Kubernetes repository of a chosen number of
// objects, the same bytes every time, for measuring how prodready's cost
// grows with a repository: apps of four objects (a Deployment, the Service
// in front of it, its PodDisruptionBudget and its HorizontalPodAutoscaler)
// that select and scale each other as real ones do, one app a file or all
// in one stream (as kustomize build or helm template print a repository).
// The apps differ from one to the next in what they omit (probes, limits,
// a security context, a pinned image), so a check of them has findings in
// every file, about six an app, and a fix has edits to make. Its command is ./gen:
//
//	go run ./internal/synthrepo/gen -objects 50000 -out /tmp/repo
package synthrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ObjectsPerApp is how many objects one app is.
const ObjectsPerApp = 4

// AppsPerNamespace is how many apps share a namespace.
const AppsPerNamespace = 50

// File is one generated file: its path in the repository and its text.
type File struct {
	Path string
	Data []byte
}

// Apps returns the apps of a repository of n objects (rounded up to whole
// apps), one app a file, apps/<namespace>/<app>.yaml.
func Apps(n int) []File {
	apps := (n + ObjectsPerApp - 1) / ObjectsPerApp
	out := make([]File, 0, apps)
	for i := range apps {
		ns := namespace(i)
		out = append(out, File{Path: fmt.Sprintf("apps/%s/app-%d.yaml", ns, i), Data: []byte(App(i))})
	}
	return out
}

// Stream returns the apps of Apps(n) as one stream of YAML documents.
func Stream(n int) []byte {
	var b strings.Builder
	apps := (n + ObjectsPerApp - 1) / ObjectsPerApp
	for i := range apps {
		b.WriteString("---\n")
		b.WriteString(App(i))
	}
	return []byte(b.String())
}

// Write writes a repository of n objects under dir: the files of Apps(n),
// or, when oneStream, Stream(n) as dir/all.yaml. dir must not exist or be
// empty of the files it writes: they are overwritten.
func Write(dir string, n int, oneStream bool) error {
	files := []File{{Path: "all.yaml", Data: Stream(n)}}
	if !oneStream {
		files = Apps(n)
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func namespace(app int) string { return fmt.Sprintf("team-%d", app/AppsPerNamespace) }

// App is the text of app i: four documents. What it omits depends on i
// (every second app has no readinessProbe, every third runs an image by
// tag only with no memory limit, every fourth no securityContext…), so
// apps differ and each has findings.
func App(i int) string {
	name, ns := fmt.Sprintf("app-%d", i), namespace(i)
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: %s\n", name, ns)
	w("  labels:\n    app.kubernetes.io/name: %s\n    app.kubernetes.io/part-of: shop\n", name)
	w("spec:\n  replicas: %d\n", 2+i%3)
	w("  selector:\n    matchLabels:\n      app.kubernetes.io/name: %s\n", name)
	w("  template:\n    metadata:\n      labels:\n        app.kubernetes.io/name: %s\n        app.kubernetes.io/part-of: shop\n", name)
	w("    spec:\n      containers:\n        - name: web\n")
	if i%3 == 0 {
		w("          image: registry.example.com/shop/%s:1.%d\n", name, i%10)
	} else {
		w("          image: registry.example.com/shop/%s@sha256:%064x\n", name, i)
	}
	w("          ports:\n            - name: http\n              containerPort: 8080\n")
	w("          env:\n            - name: LOG_LEVEL\n              value: info\n")
	w("          resources:\n            requests:\n              cpu: %dm\n              memory: 128Mi\n", 100+10*(i%5))
	if i%3 != 0 {
		w("            limits:\n              memory: 256Mi\n")
	}
	if i%2 == 1 {
		w("          readinessProbe:\n            httpGet:\n              path: /ready\n              port: http\n")
	}
	w("          livenessProbe:\n            httpGet:\n              path: /healthz\n              port: http\n            initialDelaySeconds: 10\n")
	if i%4 != 0 {
		w("          securityContext:\n            runAsNonRoot: true\n            allowPrivilegeEscalation: false\n            readOnlyRootFilesystem: true\n            capabilities:\n              drop: [\"ALL\"]\n")
	}
	w("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  namespace: %s\n", name, ns)
	w("spec:\n  selector:\n    app.kubernetes.io/name: %s\n  ports:\n    - name: http\n      port: 80\n      targetPort: http\n", name)
	w("---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: %s\n  namespace: %s\n", name, ns)
	w("spec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: %s\n", name)
	w("---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: %s\n  namespace: %s\n", name, ns)
	w("spec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: %s\n  minReplicas: %d\n  maxReplicas: 10\n", name, 2+i%3)
	w("  metrics:\n    - type: Resource\n      resource:\n        name: cpu\n        target:\n          type: Utilization\n          averageUtilization: 70\n")
	return b.String()
}
