// Package benchrepo generates the repository the review benchmarks
// read through the fake GitHub (vcs/github's in-process ones and
// cmd/prodready's serve process): apps of four objects, one app a file,
// 50 apps a namespace, and heads that each change one file.
package benchrepo

import (
	"fmt"
	"strconv"
	"strings"
)

// Repo is a generated repository of about n objects for the review
// benchmarks: apps of four objects (a Deployment, the Service and
// PodDisruptionBudget that select its pods, the HPA that scales it), one
// app per file, 50 apps per namespace; and heads that each change one
// file of it (app i's image tag).
type Repo struct {
	// Base is the base commit's files, by path.
	Base map[string]string
	// Heads are the head commits' files: head i changes app
	// (i*7919) mod apps' image tag to 1.4.(3+i).
	Heads []map[string]string
}

// New generates the repository of about n objects (n/4 apps, rounded up)
// and heads heads, each changing one file of the base.
func New(n, heads int) Repo {
	r := Repo{Base: map[string]string{}}
	apps := (n + 3) / 4
	for i := 0; i < apps; i++ {
		r.Base[AppPath(i)] = app(i, "1.4.2")
	}
	for h := 0; h < heads; h++ {
		files := make(map[string]string, len(r.Base))
		for p, c := range r.Base {
			files[p] = c
		}
		i := (h * 7919) % apps
		files[AppPath(i)] = app(i, "1.4."+strconv.Itoa(3+h))
		r.Heads = append(r.Heads, files)
	}
	return r
}

// AppPath is the path of app i.
func AppPath(i int) string {
	return fmt.Sprintf("apps/team-%d/app-%d.yaml", i/50, i)
}

// app is app i's file, its image at tag.
func app(i int, tag string) string {
	return strings.NewReplacer("APP", fmt.Sprintf("app-%d", i), "NS", fmt.Sprintf("team-%d", i/50), "TAG", tag).Replace(appText)
}

const appText = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: APP
  namespace: NS
  labels:
    app.kubernetes.io/name: APP
spec:
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/name: APP
  template:
    metadata:
      labels:
        app.kubernetes.io/name: APP
    spec:
      containers:
        - name: web
          image: registry.example.com/shop/APP:TAG
          ports:
            - name: http
              containerPort: 8080
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              memory: 256Mi
          readinessProbe:
            httpGet:
              path: /ready
              port: http
---
` + Companions

// Companions are the Service, PodDisruptionBudget and HorizontalPodAutoscaler
// of an app's Deployment, named APP in namespace NS (replace both): the
// objects the cross-object rules read beside it. checks' scale benchmark
// generates its apps with them too.
const Companions = `apiVersion: v1
kind: Service
metadata:
  name: APP
  namespace: NS
spec:
  selector:
    app.kubernetes.io/name: APP
  ports:
    - name: http
      port: 80
      targetPort: http
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: APP
  namespace: NS
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: APP
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: APP
  namespace: NS
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: APP
  minReplicas: 3
  maxReplicas: 10
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: 70
`
