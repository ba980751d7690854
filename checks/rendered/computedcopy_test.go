package rendered_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/rendered"
)

// versionedChart labels its Deployment through a helper that writes the
// app's version from Chart.yaml; its pod template's labels are podLabels
// rendered as they are (toYaml), or, with podLabels "", a literal line.
func versionedChart(appVersion, podLabels string) rendered.Files {
	return versionedChartWith(appVersion, podLabels, "app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}")
}

// versionedChartWith is versionedChart with the helper's version line.
func versionedChartWith(appVersion, podLabels, versionLine string) rendered.Files {
	labels := "        app.kubernetes.io/name: web\n"
	values := "x: 1\n"
	if podLabels != "" {
		labels = "        {{- toYaml .Values.podLabels | nindent 8 }}\n"
		values = "podLabels:\n" + podLabels
	}
	return rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: versioned\nversion: 0.1.0\nappVersion: \"" + appVersion + "\"\n"),
		"c/values.yaml": []byte(values),
		"c/templates/_helpers.tpl": []byte(`{{- define "versioned.labels" -}}
{{- $version := .Chart.AppVersion }}
app.kubernetes.io/name: web
` + versionLine + `
{{- end }}
`),
		"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    {{- include "versioned.labels" . | nindent 4 }}
spec:
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/name: web
  template:
    metadata:
      labels:
` + labels + `    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
`),
	}
}

// TestCopiedLabelsFollowTheChart checks that a label a fix copies from
// where the chart computes it (the app's version, from Chart.yaml) is
// written into a template as the line that computes it, so that the
// fixed chart's next version labels its pods with that version, not this
// one's; and that where it could only be written as rendered (into
// values.yaml, or from a line that computes it through a variable), the
// fix is withheld, saying why.
func TestCopiedLabelsFollowTheChart(t *testing.T) {
	labelsFix := func(files rendered.Files) checks.Finding {
		t.Helper()
		for _, f := range verifiedChart(t, files) {
			if f.RuleID == "template-labels-not-propagated" {
				return f
			}
		}
		t.Fatal("no template-labels-not-propagated finding")
		return checks.Finding{}
	}
	f := labelsFix(versionedChart("2.0", ""))
	if f.File != "c/templates/deployment.yaml" || f.Fix == nil || len(f.Fix.Lines) != 1 ||
		!strings.Contains(f.Fix.Lines[0].Text, "        app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}\n") {
		t.Fatalf("template-labels-not-propagated: %s:%d %+v, want the version written as the helper computes it", f.File, f.Line, f.Fix)
	}
	// The chart's next version, fixed as this one was.
	if _, doc := fixChart(t, versionedChart("2.1", ""), "c/templates/deployment.yaml", []checks.Finding{f}, "", nil); strings.Count(string(doc), `app.kubernetes.io/version: "2.1"`) != 2 {
		t.Errorf("fixed chart at appVersion 2.1 renders:\n%s\nwant its pods labelled 2.1 as the Deployment is", doc)
	}

	f = labelsFix(versionedChart("2.0", "  app.kubernetes.io/name: web\n"))
	if f.Fix == nil || len(f.Fix.Edits) != 0 || !strings.Contains(f.Fix.Withheld, `app.kubernetes.io/version: "2.0" as rendered, which the chart computes (templates/_helpers.tpl:4): in values.yaml`) {
		t.Errorf("template-labels-not-propagated into podLabels: %s:%d %+v, want it withheld for the computed version", f.File, f.Line, f.Fix)
	}

	f = labelsFix(versionedChartWith("2.0", "", "app.kubernetes.io/version: {{ $version | quote }}"))
	if f.Fix == nil || len(f.Fix.Lines) != 0 || !strings.Contains(f.Fix.Withheld, `app.kubernetes.io/version: "2.0" as rendered, which the chart computes (templates/_helpers.tpl:4): in a template`) {
		t.Errorf("template-labels-not-propagated from a variable: %s:%d %+v, want it withheld for the computed version", f.File, f.Line, f.Fix)
	}
}

// TestCopiedPortsFollowTheValues checks that a probe a fix adds on a
// port the chart writes from values names the port as the chart writes
// it, so that the fixed chart, given another port, probes that port.
func TestCopiedPortsFollowTheValues(t *testing.T) {
	chart := func(port string) rendered.Files {
		return rendered.Files{
			"c/Chart.yaml":  []byte("apiVersion: v2\nname: ported\nversion: 0.1.0\n"),
			"c/values.yaml": []byte("port: " + port + "\n"),
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
            - containerPort: {{ .Values.port }}
`),
		}
	}
	var f checks.Finding
	for _, g := range verifiedChart(t, chart("8080")) {
		if g.RuleID == "liveness-probe-missing" {
			f = g
		}
	}
	// The probe comes with the container's other fixes that insert
	// where it does, as one set of line changes (combineTemplateLines).
	if f.File != "c/templates/deployment.yaml" || f.Fix == nil ||
		!slices.ContainsFunc(f.Fix.Lines, func(c edit.Change) bool { return strings.Contains(c.Text, "              port: {{ .Values.port }}\n") }) {
		t.Fatalf("liveness-probe-missing: %s:%d %+v, want the probe's port written as the container's", f.File, f.Line, f.Fix)
	}
	if _, doc := fixChart(t, chart("9000"), "c/templates/deployment.yaml", []checks.Finding{f}, "", nil); !strings.Contains(string(doc), "port: 9000\n") || strings.Contains(string(doc), "8080") {
		t.Errorf("fixed chart with port 9000 renders:\n%s\nwant its probe on 9000", doc)
	}
}

// TestSpreadSelectorsKeepComputedLabelsOutOfValues checks that a spread
// constraint written into values.yaml, whose labelSelector would copy as
// rendered a label the chart computes from another value, is withheld,
// saying which line computes it: the selector would stop matching the
// pods once that value changes.
func TestSpreadSelectorsKeepComputedLabelsOutOfValues(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: tiered\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("tier: backend\ntopologySpreadConstraints: []\n"),
		"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
      tier: {{ .Values.tier }}
  template:
    metadata:
      labels:
        app: web
        tier: {{ .Values.tier }}
    spec:
      {{- with .Values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
`),
	}
	var f checks.Finding
	for _, g := range verifiedChart(t, files) {
		if g.RuleID == "spread-missing" {
			f = g
		}
	}
	if f.Fix == nil || len(f.Fix.Edits) != 0 || !strings.Contains(f.Fix.Withheld, `its edit writes tier: "backend" as rendered, which the chart computes (templates/deployment.yaml:`) {
		t.Errorf("spread-missing: %s:%d %+v, want it withheld for the computed tier", f.File, f.Line, f.Fix)
	}
}
