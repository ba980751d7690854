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

// includeChart writes its selector's labels, as `helm create` does,
// through a helper that names the release, or, as older charts do, as
// lines of their own, with selector.
func includeChart(selector string) rendered.Files {
	return rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: inc\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("nameOverride: \"\"\n"),
		"c/templates/_helpers.tpl": []byte(`{{- define "inc.name" -}}
{{ default .Chart.Name .Values.nameOverride }}
{{- end }}
{{- define "inc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "inc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
`),
		"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 3
  selector:
    matchLabels:
` + selector + `  template:
    metadata:
      labels:
        {{- include "inc.selectorLabels" . | nindent 8 }}
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
`),
	}
}

// TestTemplateLinesCopyTheSelectorsInclude checks that a spread fix of a
// chart whose selector labels come from a helper copies the helper's
// include, indented where the constraint's labelSelector goes, and one
// whose selector writes each label on a line of its own copies those
// lines, rather than the labels this run's release rendered (which would
// hold the release name "release" in every release, and so are
// withheld): the fixed chart, rendered as another release with another
// name, selects its own pods.
func TestTemplateLinesCopyTheSelectorsInclude(t *testing.T) {
	for _, tc := range []struct{ name, selector, want string }{
		{"include", "      {{- include \"inc.selectorLabels\" . | nindent 6 }}\n",
			"            matchLabels:\n              {{- include \"inc.selectorLabels\" . | nindent 14 }}\n"},
		{"lines", "      app.kubernetes.io/name: {{ include \"inc.name\" . }}\n      app.kubernetes.io/instance: {{ .Release.Name }}\n",
			"            matchLabels:\n              app.kubernetes.io/name: {{ include \"inc.name\" . }}\n              app.kubernetes.io/instance: {{ .Release.Name }}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { copiesTheSelector(t, includeChart(tc.selector), tc.want) })
	}
}

// copiesTheSelector checks that the spread fix of chart writes want, and
// that the fixed chart, rendered as release prod with nameOverride shop,
// has the constraint select the pods its selector does.
func copiesTheSelector(t *testing.T, chart rendered.Files, want string) {
	tmpl := "c/templates/deployment.yaml"
	var f *checks.Finding
	for _, x := range verifiedChart(t, chart) {
		if x.RuleID == "spread-missing" {
			f = &x
		}
	}
	if f == nil || f.Fix == nil || len(f.Fix.Lines) == 0 {
		t.Fatalf("spread-missing: %+v, want a fix of the template's lines", f)
	}
	fixed, applied, failed := fix.Apply(chart[tmpl], []checks.Finding{*f})
	if len(applied) != 1 || len(failed) > 0 {
		t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
	}
	// (The document's other fixes come with it: they insert there too.)
	if !strings.Contains(string(fixed), want) {
		t.Errorf("the labelSelector is not written as the selector is:\n%s", fixed)
	}
	files := rendered.Files{}
	for p, data := range chart {
		files[p] = data
	}
	files[tmpl] = fixed
	files["c/values.yaml"] = []byte("nameOverride: shop\n")
	res, err := render.InProcess(context.Background(), files, rendered.Options{ReleaseName: "prod"})
	if err != nil || len(res.Renders) != 1 || len(res.Renders[0].Documents) != 1 {
		t.Fatalf("render: %v, %+v", err, res)
	}
	var obj struct {
		Spec struct {
			Selector struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			}
			Template struct {
				Spec struct {
					TSC []struct {
						LabelSelector struct {
							MatchLabels map[string]string `yaml:"matchLabels"`
						} `yaml:"labelSelector"`
					} `yaml:"topologySpreadConstraints"`
				}
			}
		}
	}
	doc := res.Renders[0].Documents[0].YAML
	if err := yaml.Unmarshal(doc, &obj); err != nil {
		t.Fatal(err)
	}
	sel, tsc := obj.Spec.Selector.MatchLabels, obj.Spec.Template.Spec.TSC
	if len(tsc) != 1 || sel["app.kubernetes.io/instance"] != "prod" || sel["app.kubernetes.io/name"] != "shop" || len(tsc[0].LabelSelector.MatchLabels) != 2 ||
		tsc[0].LabelSelector.MatchLabels["app.kubernetes.io/instance"] != "prod" || tsc[0].LabelSelector.MatchLabels["app.kubernetes.io/name"] != "shop" {
		t.Errorf("rendered as release prod with nameOverride shop, the constraint does not select the pods the selector does:\n%s", doc)
	}
}
