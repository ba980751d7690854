package rendered_test

import (
	"context"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
	"go.yaml.in/yaml/v3"
)

// guardedChart writes the container's resources and securityContext only
// from values keys, each in a block of its own, and its lifecycle under a
// condition on another key: the first two are values the chart's users
// set, the last is not.
var guardedChart = rendered.Files{
	"c/Chart.yaml":  []byte("apiVersion: v2\nname: guarded\nversion: 0.1.0\n"),
	"c/values.yaml": []byte("resources: {}\nsecurityContext:\nhooks: false\nlifecycle: {}\n"),
	"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
          ports:
            - containerPort: 8080
          {{- with .Values.securityContext }}
          securityContext:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- if .Values.hooks }}
          lifecycle:
            {{- toYaml .Values.lifecycle | nindent 12 }}
          {{- end }}
          {{- if .Values.resources }}
          resources: {{- toYaml .Values.resources | nindent 12 }}
          {{- end }}
`),
}

// TestGuardedKeysAreFixedInValues checks that a fix adding a key the
// template writes only from a values key, in a block of its own, is an
// edit of that values key (resources under `if .Values.resources`,
// securityContext under `with .Values.securityContext`), which renders
// the fix; and that a key written under a condition on another key
// (lifecycle, when .Values.hooks) is not.
func TestGuardedKeysAreFixedInValues(t *testing.T) {
	byRule := map[string]checks.Finding{}
	for _, f := range verifiedChart(t, guardedChart) {
		byRule[f.RuleID] = f
	}
	var valuesFixes []checks.Finding
	for rule, prefix := range map[string]string{"cpu-requests-missing": "resources.requests.cpu", "capabilities-not-dropped": "securityContext.capabilities.drop"} {
		f := byRule[rule]
		if f.File != "c/values.yaml" || f.Fix == nil || len(f.Fix.Edits) == 0 || !strings.HasPrefix(strings.Join(f.Fix.Edits[0].Path, "."), prefix) {
			t.Errorf("%s: %s:%d %+v, want an edit of %s in values.yaml", rule, f.File, f.Line, f.Fix, prefix)
			continue
		}
		valuesFixes = append(valuesFixes, f)
	}
	if f := byRule["prestop-hook-missing"]; f.File == "c/values.yaml" {
		t.Errorf("prestop-hook-missing is a values edit (%+v), but the template writes lifecycle only when .Values.hooks is set", f.Fix)
	}
	fixed, applied, failed := fix.Apply(guardedChart["c/values.yaml"], valuesFixes)
	if len(applied) != len(valuesFixes) || len(failed) > 0 {
		t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
	}
	files := rendered.Files{}
	for p, data := range guardedChart {
		files[p] = data
	}
	files["c/values.yaml"] = fixed
	res, err := render.InProcess(context.Background(), files, rendered.Options{})
	if err != nil || len(res.Renders) != 1 || len(res.Renders[0].Documents) != 1 {
		t.Fatalf("render: %v, %+v", err, res)
	}
	var obj struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []map[string]any
				}
			}
		}
	}
	if err := yaml.Unmarshal(res.Renders[0].Documents[0].YAML, &obj); err != nil {
		t.Fatal(err)
	}
	c := obj.Spec.Template.Spec.Containers
	if len(c) != 1 || c[0]["resources"] == nil || c[0]["securityContext"] == nil {
		t.Errorf("the chart with the fixed values renders no resources or securityContext:\n%s", res.Renders[0].Documents[0].YAML)
	}
}
