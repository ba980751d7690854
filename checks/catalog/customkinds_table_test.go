package catalog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// customPod is the pod template every case below shares, at the same
// lines after each kind's eight-line head: the pod spec on line 12, the
// container on line 14.
const customPod = `  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
        - name: shop
          image: ghcr.io/example/shop:2.0.0
          ports:
            - containerPort: 8080
`

// TestCustomWorkloadPodRulesTable holds a handful of representative pod
// rules to their exact line and fix on each custom-resource workload.
func TestCustomWorkloadPodRulesTable(t *testing.T) {
	heads := map[string]string{
		"Rollout":             "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: shop\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: shop}\n",
		"CloneSet":            "apiVersion: apps.kruise.io/v1alpha1\nkind: CloneSet\nmetadata:\n  name: shop\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: shop}\n",
		"AdvancedStatefulSet": "apiVersion: apps.kruise.io/v1beta1\nkind: StatefulSet\nmetadata:\n  name: shop\nspec:\n  serviceName: shop\n  selector:\n    matchLabels: {app: shop}\n",
		"KnativeService":      "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: shop\n  annotations: {}\n  labels: {}\nspec:\n  # Knative's autoscaler decides the pod count\n",
	}
	tests := []struct {
		rule, path string
		line       int
		// fix says whether a fix is offered; refused, that Knative refuses
		// the field it would write.
		fix, refused bool
	}{
		{"liveness-probe-missing", "spec.template.spec.containers[0].livenessProbe", 14, true, false},
		{"memory-requests-missing", "spec.template.spec.containers[0].resources.requests.memory", 14, true, false},
		{"run-as-root", "spec.template.spec.containers[0].securityContext.runAsNonRoot", 14, true, false},
		{"capabilities-not-dropped", "spec.template.spec.containers[0].securityContext.capabilities.drop", 14, true, false},
		{"seccomp-profile-missing", "spec.template.spec.securityContext.seccompProfile", 12, true, true},
	}
	cfg := checks.DefaultConfig(catalog.Default())
	for kind, head := range heads {
		src := head + customPod
		inputs := []checks.Input{{Path: "shop.yaml", Data: []byte(src)}}
		res := checks.Run(inputs, cfg, checks.Options{})
		for _, tc := range tests {
			t.Run(kind+"/"+tc.rule, func(t *testing.T) {
				var found *checks.Finding
				for i, f := range res.Findings {
					if f.RuleID == tc.rule {
						found = &res.Findings[i]
					}
				}
				if found == nil {
					t.Fatalf("%s does not fire on the %s:\n%s", tc.rule, kind, checkstest.Describe(res.Findings))
				}
				if found.Line != tc.line || !strings.HasPrefix(tc.path, found.Path) {
					t.Errorf("at line %d path %s, want line %d path %s", found.Line, found.Path, tc.line, tc.path)
				}
				refused := kind == "KnativeService" && tc.refused
				switch {
				case refused && found.Fixable():
					t.Errorf("a fix Knative refuses is offered: %+v", found.Fix)
				case refused && !strings.Contains(found.Message, "Knative Serving refuses"):
					t.Errorf("the message does not say why there is no fix: %s", found.Message)
				case !refused && tc.fix && !found.Fixable():
					t.Errorf("no fix: %s", found.Message)
				case !refused && tc.fix:
					fixed := checkstest.ApplyFix(t, inputs, *found)
					for _, g := range checks.Run(fixed, cfg, checks.Options{}).Findings {
						if g.RuleID == tc.rule && g.Path == found.Path || g.RuleID == "schema-invalid" {
							t.Errorf("after the fix: %s", fmt.Sprint(g.RuleID, " ", g.Message))
						}
					}
				}
			})
		}
	}
}
