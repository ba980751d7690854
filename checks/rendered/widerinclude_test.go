package rendered_test

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
)

// labelledChart is `helm create`'s older shape: the Deployment's labels
// include the chart's labels helper (after labels from values), its pod
// template's only the selector's (then the values' podLabels). The
// labels helper opens with a line break of its own, as some charts' do.
func labelledChart(podLabels string) rendered.Files {
	return rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: labelled\nversion: 0.1.0\nappVersion: \"1.0\"\n"),
		"c/values.yaml": []byte("deploymentLabels: {}\npodLabels: " + podLabels + "\n"),
		"c/templates/_helpers.tpl": []byte(`{{- define "labelled.selectorLabels" -}}
app.kubernetes.io/name: labelled
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "labelled.labels" }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{ include "labelled.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
`),
		"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels:
    {{- with .Values.deploymentLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- include "labelled.labels" . | nindent 4 }}
spec:
  replicas: 3
  selector:
    matchLabels:
      {{- include "labelled.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "labelled.selectorLabels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
`),
	}
}

// TestPodTemplateIncludesTheWorkloadsLabels checks that the labels a
// workload's labels helper writes and its pod template's lack are
// copied by including that helper in the pod template in place of the
// selector's (what the chart's own helpers write, for every release),
// that the description names what comes along, and that the fixed
// chart's pods carry the labels and still match the selector; and that
// when the pod template's values already write one of the helper's keys
// the include is not changed (the key would be written twice): the fix
// is left by hand, not withheld after a render spent on it.
func TestPodTemplateIncludesTheWorkloadsLabels(t *testing.T) {
	var f checks.Finding
	for _, g := range verifiedChart(t, labelledChart("{}")) {
		if g.RuleID == "template-labels-not-propagated" {
			f = g
		}
	}
	if f.File != "c/templates/deployment.yaml" || f.Line != 18 || f.Fix == nil || len(f.Fix.Lines) != 1 ||
		f.Fix.Lines[0].Text != `        {{- include "labelled.labels" . | nindent 8 }}`+"\n" ||
		!strings.Contains(f.Fix.Description, `in place of "labelled.selectorLabels"; it adds helm.sh/chart as well`) {
		t.Fatalf("template-labels-not-propagated: %s:%d %+v, want line 18 to include labelled.labels", f.File, f.Line, f.Fix)
	}
	var obj struct {
		Spec struct {
			Selector struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			}
			Template struct {
				Metadata struct {
					Labels map[string]string
				}
			}
		}
	}
	_, doc := fixChart(t, labelledChart("{}"), "c/templates/deployment.yaml", []checks.Finding{f}, "prod", &obj)
	labels := obj.Spec.Template.Metadata.Labels
	want := map[string]string{"app.kubernetes.io/instance": "prod", "app.kubernetes.io/version": "1.0", "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "labelled-0.1.0"}
	for k, v := range obj.Spec.Selector.MatchLabels {
		want[k] = v
	}
	for k, v := range want {
		if labels[k] != v {
			t.Errorf("fixed pod template, release prod: label %s is %q, want %q:\n%s", k, labels[k], v, doc)
		}
	}

	f = checks.Finding{}
	for _, g := range verifiedChart(t, labelledChart(`{app.kubernetes.io/version: "1.0"}`)) {
		if g.RuleID == "template-labels-not-propagated" {
			f = g
		}
	}
	if f.Fix == nil || len(f.Fix.Lines) != 0 || len(f.Fix.Edits) != 0 || f.Fix.Withheld != "" {
		t.Errorf("template-labels-not-propagated, podLabels writing the version: %s:%d %+v, want it left by hand, no render spent on it", f.File, f.Line, f.Fix)
	}
}

// TestWiderIncludeWhenLinesWouldWriteComputedLabels checks that a pod
// template whose labels end with a line of their own (`tier: {{ … }}`),
// after which the missing labels could only be written as rendered (the
// helper computes the version through a variable, which a copy of its
// line cannot read), still gets the workload's labels helper: written as
// rendered they would keep this render's version, so that placement is
// passed over for the next, not withheld.
func TestWiderIncludeWhenLinesWouldWriteComputedLabels(t *testing.T) {
	chart := labelledChart("{}")
	helpers := string(chart["c/templates/_helpers.tpl"])
	version := "app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}\n"
	chart["c/templates/_helpers.tpl"] = []byte(strings.Replace(helpers, version, "{{- $v := .Chart.AppVersion }}\napp.kubernetes.io/version: {{ $v | quote }}\n", 1))
	tmpl := string(chart["c/templates/deployment.yaml"])
	include := "        {{- include \"labelled.selectorLabels\" . | nindent 8 }}\n"
	chart["c/templates/deployment.yaml"] = []byte(strings.Replace(tmpl, include, include+"        tier: {{ .Values.tier | default \"web\" }}\n", 1))
	var f checks.Finding
	for _, g := range verifiedChart(t, chart) {
		if g.RuleID == "template-labels-not-propagated" {
			f = g
		}
	}
	if f.Fix == nil || f.Fix.Withheld != "" || len(f.Fix.Lines) != 1 || f.Fix.Lines[0].Text != `        {{- include "labelled.labels" . | nindent 8 }}`+"\n" {
		t.Fatalf("template-labels-not-propagated: %s:%d %+v, want line 18 to include labelled.labels", f.File, f.Line, f.Fix)
	}
}

// TestWiderIncludeAndLiteralLinesAreNotMadeTogether checks two fixes
// that add the same labels to a pod template, each right alone, one by
// the workload's labels helper in place of the selector's, the other as
// literal lines after it: made together they write each label twice, so
// the second is withheld with why, and the fixes kept, applied together
// as fix applies them, render every label once.
func TestWiderIncludeAndLiteralLinesAreNotMadeTogether(t *testing.T) {
	// labelledChart with every recommended label but the version and
	// managed-by on its workload and pod template alike.
	chart := labelledChart("{}")
	name := "app.kubernetes.io/name: labelled\n"
	chart["c/templates/_helpers.tpl"] = []byte(strings.Replace(string(chart["c/templates/_helpers.tpl"]), name, name+"app.kubernetes.io/component: web\n", 1))
	tmpl := string(chart["c/templates/deployment.yaml"])
	for _, include := range []string{"    {{- include \"labelled.labels\" . | nindent 4 }}\n", "        {{- include \"labelled.selectorLabels\" . | nindent 8 }}\n"} {
		indent := include[:len(include)-len(strings.TrimLeft(include, " "))]
		tmpl = strings.Replace(tmpl, include, include+indent+"app.kubernetes.io/part-of: shop\n", 1)
	}
	chart["c/templates/deployment.yaml"] = []byte(tmpl)
	const file = "c/templates/deployment.yaml"
	var kept []checks.Finding
	withheld := map[string]string{}
	for _, f := range verifiedChart(t, chart) {
		if f.RuleID != "recommended-labels-missing" && f.RuleID != "template-labels-not-propagated" {
			continue
		}
		switch {
		case f.Fix != nil && len(f.Fix.Lines) > 0 && f.File == file:
			kept = append(kept, f)
		case f.Fix != nil && f.Fix.Withheld != "":
			withheld[f.RuleID] = f.Fix.Withheld
		}
	}
	if len(kept) != 1 || len(withheld) != 1 {
		t.Fatalf("kept %d of the two labels fixes, withheld %v; want one of each", len(kept), withheld)
	}
	for rule, why := range withheld {
		if !strings.Contains(why, "with it and the other fixes brings schema-invalid") {
			t.Errorf("%s withheld: %q, want why (with the other fixes it brings schema-invalid)", rule, why)
		}
	}
	var obj struct {
		Spec struct {
			Template struct {
				Metadata struct {
					Labels map[string]string
				}
			}
		}
	}
	_, doc := fixChart(t, chart, file, kept, "", &obj)
	labels := obj.Spec.Template.Metadata.Labels
	if labels["app.kubernetes.io/version"] != "1.0" || labels["app.kubernetes.io/managed-by"] != "Helm" {
		t.Errorf("fixed pod template labels %v, want the version and managed-by:\n%s", labels, doc)
	}
}
