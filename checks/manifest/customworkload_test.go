package manifest

import (
	"testing"
)

const customWorkloadsYAML = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  strategy:
    canary:
      canaryService: web-canary
      stableService: web-stable
      steps:
        - setWeight: 20
        - pause: {duration: 1h}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: ref
spec:
  replicas: 2
  workloadRef:
    apiVersion: apps/v1
    kind: Deployment
    name: ref
  strategy:
    blueGreen: {activeService: ref-active, previewService: ref-preview}
---
apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata:
  name: clone
spec:
  selector:
    matchLabels: {app: clone}
  updateStrategy: {type: InPlaceIfPossible, maxUnavailable: 50%}
  template:
    metadata:
      labels: {app: clone}
    spec:
      containers:
        - name: clone
          image: nginx:1.27
---
apiVersion: apps.kruise.io/v1beta1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 1
  serviceName: db
  reserveOrdinals: [1]
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
        - name: db
          image: postgres:16
---
apiVersion: serving.knative.dev/v1
kind: Service
metadata:
  name: hello
spec:
  template:
    metadata:
      annotations: {autoscaling.knative.dev/min-scale: "1"}
    spec:
      containerConcurrency: 10
      containers:
        - image: ghcr.io/knative/helloworld-go:latest
`

// TestCustomWorkloadsDecode holds the custom-resource workloads to what
// the rules read of them: the pod template at spec.template with the
// manifest's own lines, replicas, the selector, the kind they behave like.
func TestCustomWorkloadsDecode(t *testing.T) {
	f := Parse("crd.yaml", []byte(customWorkloadsYAML), Limits{})
	if len(f.Problems) != 0 {
		t.Fatalf("problems: %+v", f.Problems)
	}
	tests := []struct {
		name, like    string
		replicas      int32
		replicasSet   bool
		template      bool
		imageLine     int
		container     string
		selectorLabel string
	}{
		{"web", LikeDeployment, 3, true, true, 22, "web", "web"},
		{"ref", LikeDeployment, 2, true, false, 0, "", ""},
		{"clone", LikeDeployment, 1, false, true, 51, "clone", "clone"},
		{"db", LikeStatefulSet, 1, true, true, 69, "db", "db"},
		{"hello", LikeKnativeService, 0, false, true, 82, "user-container", ""},
	}
	if len(f.Objects) != len(tests) {
		t.Fatalf("%d objects, want %d", len(f.Objects), len(tests))
	}
	for i, tc := range tests {
		o := f.Objects[i]
		t.Run(tc.name, func(t *testing.T) {
			if o.Typed() == nil {
				t.Fatalf("%s %s not decoded", o.APIVersion, o.Kind)
			}
			if got := o.LikeKind(); got != tc.like {
				t.Errorf("LikeKind = %q, want %q", got, tc.like)
			}
			n, set := o.Replicas()
			if n != tc.replicas || set != tc.replicasSet {
				t.Errorf("Replicas = %d, %v; want %d, %v", n, set, tc.replicas, tc.replicasSet)
			}
			pt := o.PodTemplate()
			if (pt != nil) != tc.template {
				t.Fatalf("PodTemplate = %v, want one: %v", pt, tc.template)
			}
			if o.IsLongRunning() != tc.template {
				t.Errorf("IsLongRunning = %v", !tc.template)
			}
			if pt == nil {
				return
			}
			cs := pt.Containers()
			if len(cs) != 1 || cs[0].Name != tc.container {
				t.Fatalf("containers = %+v, want one named %q", cs, tc.container)
			}
			if line, _, exact := o.Pos(cs[0].Path.Child("image")...); !exact || line != tc.imageLine {
				t.Errorf("image at line %d (exact %v), want %d", line, exact, tc.imageLine)
			}
			if sel := o.Selector(); (sel != nil) != (tc.selectorLabel != "") || sel != nil && sel.MatchLabels["app"] != tc.selectorLabel {
				t.Errorf("Selector = %v, want app=%q", sel, tc.selectorLabel)
			}
		})
	}
	r := f.Objects[0].Rollout()
	if got := r.Services(); len(got) != 2 || got[0] != "web-canary" || got[1] != "web-stable" {
		t.Errorf("canary Services = %v", got)
	}
	ref := f.Objects[1].Rollout()
	if ref.Spec.WorkloadRef == nil || ref.Spec.WorkloadRef.Name != "ref" || len(ref.Services()) != 2 {
		t.Errorf("workloadRef Rollout = %+v", ref.Spec)
	}
}

// TestCustomWorkloadOtherVersionsAreNotDecoded: a kind of the same name in
// another group (a core Service, an unknown Rollout version) is not one.
func TestCustomWorkloadOtherVersionsAreNotDecoded(t *testing.T) {
	src := "apiVersion: argoproj.io/v1beta9\nkind: Rollout\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n      containers: [{name: a, image: b}]\n"
	f := Parse("x.yaml", []byte(src), Limits{})
	if o := f.Objects[0]; o.Typed() != nil || o.IsWorkload() {
		t.Errorf("unknown version decoded: %T", o.Typed())
	}
	if !IsCustomWorkload("argoproj.io/v1alpha1", "Rollout") || IsCustomWorkload("v1", "Service") {
		t.Error("IsCustomWorkload is wrong")
	}
}
