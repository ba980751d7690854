package render

import (
	"context"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// postProcessed is a chart whose helpers' output is post-processed as
// real charts do it: labels merged from helpers parsed with fromYaml
// (kyverno's kyverno.labels.merge), a pod template piped through
// fromYaml | toYaml (traefik's deployment), and a range over values
// written with tpl (an extraObjects list).
var postProcessed = rendered.Files{
	"x/Chart.yaml":  []byte("apiVersion: v2\nname: x\nversion: 0.1.0\n"),
	"x/values.yaml": []byte("replicas: 2\ncomponent: api\nextraObjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: extra\n"),
	"x/templates/_helpers.tpl": []byte(`{{- define "x.labels.merge" -}}
{{- $labels := dict -}}
{{- range . -}}
  {{- $labels = merge $labels (fromYaml .) -}}
{{- end -}}
{{- toYaml $labels -}}
{{- end -}}

{{- define "x.labels.component" -}}
app.kubernetes.io/component: {{ . }}
{{- end -}}

{{- define "x.labels" -}}
{{- template "x.labels.merge" (list
  (include "x.labels.component" .Values.component)
  (printf "app.kubernetes.io/name: %s" .Chart.Name)
) -}}
{{- end -}}

{{- define "x.pod" }}
metadata:
  labels:
    app: x
spec:
  containers:
    - name: app
      image: nginx:1.25
      securityContext:
        privileged: true
{{- end }}
`),
	"x/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: x
  labels:
    {{- include "x.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  template: {{ include "x.pod" . | fromYaml | toYaml | nindent 4 }}
`),
	"x/templates/extra.yaml": []byte(`{{- range .Values.extraObjects }}
---
{{ tpl (toYaml .) $ }}
{{- end }}
`),
}

// The marks never change what a chart renders, and every key of a
// post-processed helper's output is placed where the author edits it: a
// key of a helper parsed with fromYaml and written with toYaml at its
// helper line, a label merged from helpers at the include that called
// them, an object a range writes with tpl at that action's line; none at
// line 1, and no template's map is lost.
func TestHelmSourceMapThroughPostProcessing(t *testing.T) {
	r := RenderChart(context.Background(), postProcessed, "x", nil, rendered.Options{})
	if len(r.Problems) > 0 || len(r.Unmapped) > 0 {
		t.Fatalf("problems %+v, unmapped %+v", r.Problems, r.Unmapped)
	}
	dep := docIndex(t, r, "Deployment")
	if text := string(r.Documents[dep].YAML); !strings.Contains(text, "app.kubernetes.io/component: api\n") || strings.Contains(text, "null") {
		t.Fatalf("rendered labels changed:\n%s", text)
	}
	const tpl, helpers, values = "x/templates/deployment.yaml", "x/templates/_helpers.tpl", "x/values.yaml"
	checkLocations(t, r, dep, []locCase{
		{`metadata.labels["app.kubernetes.io/component"]`, rendered.Location{File: tpl, Line: 6, Column: 5, Kind: Template}},
		{"spec.replicas", rendered.Location{File: values, Line: 1, Column: 1, Kind: Values}},
		{"spec.template.spec.containers[0].securityContext.privileged", rendered.Location{File: helpers, Line: 29, Column: 9, Kind: Template}},
		{"spec.template.spec.containers[0].image", rendered.Location{File: helpers, Line: 27, Column: 7, Kind: Template}},
	})
	cm := docIndex(t, r, "ConfigMap")
	checkLocations(t, r, cm, []locCase{
		{"metadata.name", rendered.Location{File: "x/templates/extra.yaml", Line: 3, Column: 1, Kind: Template}},
	})
}

// alignMarks gives each line the marks of its counterpart, matching a
// line whose value alone differs (a random password) by its key, and
// counts the key lines it could not match.
func TestAlignMarks(t *testing.T) {
	lines := []string{"a: 1", "password: xyz", "b:", "  c: 2", "  d: 3"}
	marked := []string{"a: #@pr0.1@ 1", "password: #@pr0.2@ abc", "b: #@pr0.3@", "  e: #@pr0.9@ 4", "  d: #@pr0.5@ 3"}
	marks, missed := alignMarks(lines, marked)
	if missed != 1 {
		t.Errorf("missed = %d, want 1 (c, which the marked output lacks)", missed)
	}
	for i, want := range []int{1, 2, 3, 0, 5} {
		got := 0
		if len(marks[i]) > 0 {
			got = marks[i][0].Line
		}
		if got != want {
			t.Errorf("line %d %q: mark line %d, want %d", i+1, lines[i], got, want)
		}
	}
}
