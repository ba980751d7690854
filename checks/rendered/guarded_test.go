package rendered_test

import (
	"bytes"
	"context"
	"maps"
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
	found := lastByRule(verifiedChart(t, guardedChart))
	var valuesFixes []checks.Finding
	for rule, prefix := range map[string]string{"cpu-requests-missing": "resources.requests.cpu", "capabilities-not-dropped": "securityContext.capabilities.drop"} {
		f := found[rule]
		if f.File != "c/values.yaml" || f.Fix == nil || len(f.Fix.Edits) == 0 || !strings.HasPrefix(strings.Join(f.Fix.Edits[0].Path, "."), prefix) {
			t.Errorf("%s: %s:%d %+v, want an edit of %s in values.yaml", rule, f.File, f.Line, f.Fix, prefix)
			continue
		}
		valuesFixes = append(valuesFixes, f)
	}
	if f := found["prestop-hook-missing"]; f.File == "c/values.yaml" {
		t.Errorf("prestop-hook-missing is a values edit (%+v), but the template writes lifecycle only when .Values.hooks is set", f.Fix)
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
	_, doc := fixChart(t, guardedChart, "c/values.yaml", valuesFixes, "", &obj)
	c := obj.Spec.Template.Spec.Containers
	if len(c) != 1 || c[0]["resources"] == nil || c[0]["securityContext"] == nil {
		t.Errorf("the chart with the fixed values renders no resources or securityContext:\n%s", doc)
	}
}

// fixChart returns chart with fs fixed in its file (fs fix that file, as
// a chart's fixes are placed), and the one document it renders as
// release (the default when ""), read into into when not nil.
func fixChart(t *testing.T, chart rendered.Files, file string, fs []checks.Finding, release string, into any) (rendered.Files, []byte) {
	t.Helper()
	files, r := fixedRender(t, chart, file, fs, release)
	if len(r.Documents) != 1 {
		t.Fatalf("the fixed chart renders %d documents, want 1: %+v", len(r.Documents), r)
	}
	doc := r.Documents[0].YAML
	if into != nil {
		if err := yaml.Unmarshal(doc, into); err != nil {
			t.Fatal(err)
		}
	}
	return files, doc
}

// fixedRender returns chart with fs fixed in its file (fs fix that file,
// as a chart's fixes are placed), and its one render as release (the
// default when ""), which has no problem.
func fixedRender(t *testing.T, chart rendered.Files, file string, fs []checks.Finding, release string) (rendered.Files, *rendered.Render) {
	t.Helper()
	fixed, applied, failed := fix.Apply(chart[file], fs)
	if len(applied) != len(fs) || len(failed) > 0 {
		t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
	}
	files := maps.Clone(chart)
	files[file] = fixed
	res, err := render.InProcess(context.Background(), files, rendered.Options{ReleaseName: release})
	if err != nil || len(res.Renders) != 1 || len(res.Renders[0].Problems) > 0 {
		t.Fatalf("render: %v, %+v\n%s", err, res, fixed)
	}
	return files, res.Renders[0]
}

// extendedChart writes its container's mounts and its pod's volumes as
// most charts do: the template's own items, then a values list for the
// chart's users to add theirs (mounts after the last item, with the
// containers from another values list after them; volumes only when the
// values list holds some). Its pod's securityContext, written only from
// a values key (indented the older way), comes before the first key the
// pod spec renders.
var extendedChart = rendered.Files{
	"c/Chart.yaml": []byte("apiVersion: v2\nname: extended\nversion: 0.1.0\n"),
	"c/values.yaml": []byte(`podSecurityContext: {}
securityContext:
  runAsNonRoot: true
## Extra mounts of the web container
extraVolumeMounts: []
volumes: []
sidecars: []
`),
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
      {{- if .Values.podSecurityContext }}
      securityContext:
{{ toYaml .Values.podSecurityContext | indent 8 }}
      {{- end }}
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
          securityContext:
            {{- toYaml .Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: config
              mountPath: /etc/web
            {{- with .Values.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
        {{- with .Values.sidecars }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .Values.volumes }}
      volumes:
        {{- toYaml . | nindent 8 }}
      {{- end }}
`),
}

// TestExtendedListsAreFixedInValues checks that a fix setting a key of a
// values mapping, appending a mount to a list the template ends with a
// values list, and adding a volumes key the template writes only from a
// values list is one edit of values.yaml, each part where the chart's
// users make it, and that the chart rendered with it has the mount last;
// and that a key the template writes only from a values key before the
// first key its mapping renders is fixed in values.yaml too. The fix
// names the lists a release's values would replace.
func TestExtendedListsAreFixedInValues(t *testing.T) {
	var f, seccomp checks.Finding
	for _, g := range verifiedChart(t, extendedChart) {
		switch g.RuleID {
		case "readonly-rootfs-missing":
			f = g
		case "seccomp-profile-missing":
			seccomp = g
		}
	}
	if seccomp.File != "c/values.yaml" || seccomp.Fix == nil || len(seccomp.Fix.Edits) != 1 || strings.Join(seccomp.Fix.Edits[0].Path, ".") != "podSecurityContext.seccompProfile.type" {
		t.Errorf("seccomp-profile-missing: %s:%d %+v, want an edit of podSecurityContext.seccompProfile.type in values.yaml", seccomp.File, seccomp.Line, seccomp.Fix)
	}
	var paths []string
	if f.Fix != nil {
		for _, op := range f.Fix.Edits {
			paths = append(paths, string(op.Action)+" "+strings.Join(op.Path, "."))
		}
	}
	want := "set securityContext.readOnlyRootFilesystem, append extraVolumeMounts, append volumes"
	if f.File != "c/values.yaml" || strings.Join(paths, ", ") != want {
		t.Fatalf("readonly-rootfs-missing: %s:%d %v, want %s in values.yaml", f.File, f.Line, paths, want)
	}
	// A release's values replace the lists whole: the fix says its items
	// must stay in them, or the read-only root would lose its /tmp.
	if !strings.HasSuffix(f.Fix.Description, "; a release's values replace a values list whole, so those that set extraVolumeMounts or volumes must keep the fix's items)") {
		t.Errorf("readonly-rootfs-missing's fix says %q, want it to name the lists a release's values replace", f.Fix.Description)
	}
	var obj struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						SecurityContext map[string]any   `yaml:"securityContext"`
						VolumeMounts    []map[string]any `yaml:"volumeMounts"`
					}
					Volumes []map[string]any
				}
			}
		}
	}
	_, doc := fixChart(t, extendedChart, "c/values.yaml", []checks.Finding{f}, "", &obj)
	s := obj.Spec.Template.Spec
	if len(s.Containers) != 1 || s.Containers[0].SecurityContext["readOnlyRootFilesystem"] != true ||
		len(s.Containers[0].VolumeMounts) != 2 || s.Containers[0].VolumeMounts[1]["mountPath"] != "/tmp" ||
		len(s.Volumes) != 1 || s.Volumes[0]["name"] != s.Containers[0].VolumeMounts[1]["name"] {
		t.Errorf("the chart with the fixed values does not render the fix:\n%s", doc)
	}
}

// tplChart's Deployment selects its pods by the release's name, and
// writes its spread constraints from a values list through tpl, as
// ingress-nginx and Kyverno do, for its users to template them.
var tplChart = rendered.Files{
	"c/Chart.yaml":  []byte("apiVersion: v2\nname: tpl\nversion: 0.1.0\n"),
	"c/values.yaml": []byte("topologySpreadConstraints: []\n"),
	"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/name: web
      app.kubernetes.io/instance: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web
        app.kubernetes.io/instance: {{ .Release.Name }}
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
      {{- with .Values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- tpl (toYaml .) $ | nindent 8 }}
      {{- end }}
`),
}

// TestTplValuesTakeTheReleaseName checks that a spread whose selector
// holds the release's name goes to a values list the chart renders
// through tpl with the name as {{ .Release.Name }}, that the spread over
// zones that follows is appended to that list, and that the chart so
// fixed, installed under another name, selects its own pods in both.
func TestTplValuesTakeTheReleaseName(t *testing.T) {
	var f checks.Finding
	for _, g := range verifiedChart(t, tplChart) {
		if g.RuleID == "spread-missing" {
			f = g
		}
	}
	if f.File != "c/values.yaml" || f.Fix == nil || len(f.Fix.Edits) != 1 || !strings.Contains(f.Fix.Edits[0].Value, "{{ .Release.Name }}") {
		t.Fatalf("spread-missing: %s:%d %+v, want an edit of topologySpreadConstraints in values.yaml naming {{ .Release.Name }}", f.File, f.Line, f.Fix)
	}
	files, _ := fixChart(t, tplChart, "c/values.yaml", []checks.Finding{f}, "", nil)
	var zone checks.Finding
	for _, g := range verifiedChart(t, files) {
		if g.RuleID == "spread-zone-missing" {
			zone = g
		}
	}
	if zone.File != "c/values.yaml" || zone.Fix == nil || len(zone.Fix.Edits) != 1 || strings.Join(zone.Fix.Edits[0].Path, ".") != "topologySpreadConstraints" {
		t.Fatalf("spread-zone-missing, after: %s:%d %+v, want an item appended to topologySpreadConstraints in values.yaml", zone.File, zone.Line, zone.Fix)
	}
	var obj struct {
		Spec struct {
			Template struct {
				Spec struct {
					TopologySpreadConstraints []struct {
						LabelSelector struct {
							MatchLabels map[string]string `yaml:"matchLabels"`
						} `yaml:"labelSelector"`
					} `yaml:"topologySpreadConstraints"`
				}
			}
		}
	}
	_, doc := fixChart(t, files, "c/values.yaml", []checks.Finding{zone}, "other", &obj)
	tsc := obj.Spec.Template.Spec.TopologySpreadConstraints
	if len(tsc) != 2 || tsc[0].LabelSelector.MatchLabels["app.kubernetes.io/instance"] != "other" || tsc[1].LabelSelector.MatchLabels["app.kubernetes.io/instance"] != "other" {
		t.Errorf("release other, fixed, does not spread its own pods:\n%s", doc)
	}
}

// TestTplValuesKeepNoChartName checks that a spread whose selector holds
// the chart's name is withheld from a values list, saying why: the name
// may come from the chart's name helper, which nameOverride changes, and
// in values.yaml it would stay the same.
func TestTplValuesKeepNoChartName(t *testing.T) {
	files := rendered.Files{}
	for p, data := range tplChart {
		files[p] = bytes.ReplaceAll(data, []byte("app.kubernetes.io/name: web"), []byte("app.kubernetes.io/name: {{ .Chart.Name }}"))
	}
	var f checks.Finding
	for _, g := range verifiedChart(t, files) {
		if g.RuleID == "spread-missing" {
			f = g
		}
	}
	if f.Fix == nil || len(f.Fix.Edits) != 0 || !strings.Contains(f.Fix.Withheld, `writes "tpl", the chart's name`) {
		t.Errorf("spread-missing: %s:%d %+v, want it withheld for writing the chart's name", f.File, f.Line, f.Fix)
	}
}

// helperChart selects its pods by labels a helper writes, the chart's
// name through a name helper nameOverride changes, and writes its spread
// constraints from a values list through tpl. other is more of the
// Deployment's template (a document that uses the labels helper too).
func helperChart(other string) rendered.Files {
	return rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: helped\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("nameOverride: \"\"\ntopologySpreadConstraints: []\n"),
		"c/templates/_helpers.tpl": []byte(`{{- define "helped.name" -}}
{{ default .Chart.Name .Values.nameOverride }}
{{- end -}}
{{- define "helped.selectorLabels" -}}
app.kubernetes.io/name: {{ include "helped.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
`),
		"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 3
  selector:
    matchLabels:
      {{- include "helped.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "helped.selectorLabels" . | nindent 8 }}
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
      {{- with .Values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- tpl (toYaml .) $ | nindent 8 }}
      {{- end }}
` + other),
	}
}

// TestTplValuesWriteTheNameHelper checks that a spread whose selector
// holds the chart's name, written by a name helper every use of which
// passes the chart's root, goes to a values list rendered through tpl as
// that helper's include, so that the chart fixed and installed as another
// release with nameOverride still spreads its own pods; and that with one
// use of the labels helper passing another dot (a dict made from the
// root, which prodready cannot tell from any other), the fix is withheld.
func TestTplValuesWriteTheNameHelper(t *testing.T) {
	var f checks.Finding
	for _, g := range verifiedChart(t, helperChart("")) {
		if g.RuleID == "spread-missing" {
			f = g
		}
	}
	if f.File != "c/values.yaml" || f.Fix == nil || len(f.Fix.Edits) != 1 || !strings.Contains(f.Fix.Edits[0].Value, `'{{ include "helped.name" . }}'`) {
		t.Fatalf("spread-missing: %s:%d %+v, want an edit of topologySpreadConstraints in values.yaml naming the chart through its helper", f.File, f.Line, f.Fix)
	}
	files, _ := fixChart(t, helperChart(""), "c/values.yaml", []checks.Finding{f}, "", nil)
	files["c/values.yaml"] = bytes.Replace(files["c/values.yaml"], []byte(`nameOverride: ""`), []byte("nameOverride: other"), 1)
	var obj struct {
		Spec struct {
			Template struct {
				Metadata struct {
					Labels map[string]string
				}
				Spec struct {
					TopologySpreadConstraints []struct {
						LabelSelector struct {
							MatchLabels map[string]string `yaml:"matchLabels"`
						} `yaml:"labelSelector"`
					} `yaml:"topologySpreadConstraints"`
				}
			}
		}
	}
	_, doc := fixChart(t, files, "c/values.yaml", nil, "prod", &obj)
	tsc, labels := obj.Spec.Template.Spec.TopologySpreadConstraints, obj.Spec.Template.Metadata.Labels
	if len(tsc) != 1 || labels["app.kubernetes.io/name"] != "other" || !maps.Equal(tsc[0].LabelSelector.MatchLabels, labels) {
		t.Errorf("release prod with nameOverride other, fixed, does not spread its own pods:\n%s", doc)
	}

	f = checks.Finding{}
	other := `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: labels
  labels:
    {{- include "helped.selectorLabels" (merge (dict) $) | nindent 4 }}
`
	for _, g := range verifiedChart(t, helperChart(other)) {
		if g.RuleID == "spread-missing" {
			f = g
		}
	}
	if f.Fix == nil || len(f.Fix.Edits) != 0 || !strings.Contains(f.Fix.Withheld, `"helped", the chart's name`) {
		t.Errorf("spread-missing, labels helper used with another dot: %s:%d %+v, want it withheld for the chart's name", f.File, f.Line, f.Fix)
	}
}
