package rendered_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/fix"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/checks/rendered"
	"go.yaml.in/yaml/v3"
)

// lineChart is a chart whose one template mixes literal lines with template
// actions: the app container's securityContext is written as is, the
// sidecars' come out of a range (one template line, rendered twice).
var lineChart = rendered.Files{
	"c/Chart.yaml":  []byte("apiVersion: v2\nname: lines\nversion: 0.1.0\n"),
	"c/values.yaml": []byte("image: nginx:1.27\nsidecars: [one, two]\n"),
	"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-app
spec:
  selector:
    matchLabels:
      app: app
  template:
    metadata:
      labels:
        app: app
    spec:
      containers:
        - name: app
          image: "{{ .Values.image }}"
          securityContext:
            privileged: true
      {{- range .Values.sidecars }}
        - name: {{ . }}
          image: busybox:1.36
          securityContext:
            privileged: true
      {{- end }}
`),
}

// TestTemplateLineFixes checks that a fix of a key a template writes as it
// is becomes a change of that template line, verified by rendering again,
// while the same key written by a line a range renders twice gets no edit;
// and that applying the line changes keeps every template action.
func TestTemplateLineFixes(t *testing.T) {
	var app, sidecars []checks.Finding
	for _, f := range verifiedChart(t, lineChart) {
		if f.RuleID != "privileged-container" {
			continue
		}
		if strings.Contains(f.Path, "containers[0]") {
			app = append(app, f)
		} else {
			sidecars = append(sidecars, f)
		}
	}
	if len(app) != 1 || len(sidecars) != 2 {
		t.Fatalf("privileged-container findings: %d on the app container, %d on the sidecars; want 1 and 2", len(app), len(sidecars))
	}
	f := app[0]
	if f.File != "c/templates/deployment.yaml" || f.Line != 18 {
		t.Errorf("app finding at %s:%d, want c/templates/deployment.yaml:18 (its privileged line)", f.File, f.Line)
	}
	if f.Fix == nil || len(f.Fix.Edits) != 0 || len(f.Fix.Lines) == 0 {
		t.Fatalf("app finding's fix: %+v, want line changes and no structured edit", f.Fix)
	}
	// The document's verified fixes are made together (one securityContext
	// block), so its fix carries theirs too; its own is on line 18.
	src := lineChart["c/templates/deployment.yaml"]
	lines := strings.SplitAfter(string(src), "\n")
	own := false
	for _, c := range f.Fix.Lines {
		own = own || c.StartLine == 18 && strings.HasPrefix(c.Text, "            privileged: false\n")
		for l := c.StartLine; l <= c.EndLine; l++ {
			if strings.Contains(lines[l-1], "{{") {
				t.Errorf("change %+v replaces line %d, which has a template action: %q", c, l, lines[l-1])
			}
		}
	}
	if !own {
		t.Errorf("no change sets line 18 to privileged: false: %+v", f.Fix.Lines)
	}
	for _, s := range sidecars {
		if s.Fixable() {
			t.Errorf("sidecar finding at %s:%d has a fix, but its line renders twice: %+v", s.File, s.Line, s.Fix)
		}
	}
	out, applied, failed := fix.Apply(src, app)
	if len(applied) != 1 || len(failed) != 0 {
		t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
	}
	var actions, kept []string
	for _, l := range lines {
		if strings.Contains(l, "{{") {
			actions = append(actions, l)
		}
	}
	for _, l := range strings.SplitAfter(string(out), "\n") {
		if strings.Contains(l, "{{") {
			kept = append(kept, l)
		}
	}
	if strings.Join(kept, "") != strings.Join(actions, "") {
		t.Errorf("the fixed template's template actions differ:\n%s", out)
	}
	if !bytes.Contains(out, []byte("          securityContext:\n            privileged: false\n")) {
		t.Errorf("the app container is not fixed:\n%s", out)
	}
	if !bytes.Contains(out, []byte("          image: busybox:1.36\n          securityContext:\n            privileged: true\n")) {
		t.Errorf("the sidecars' line, which renders twice, changed:\n%s", out)
	}
}

// TestTemplateLinesOverlap checks that fix.Apply makes the line changes of
// a template's fixes whole or not at all: the same change twice is made
// once, and a change overlapping another finding's is refused for that
// finding only.
func TestTemplateLinesOverlap(t *testing.T) {
	src := []byte("a: 1\n{{ if .x }}\nb: 2\n{{ end }}\n")
	withLines := func(cs ...edit.Change) checks.Finding {
		return checks.Finding{RuleID: "r", Fix: &checks.Fix{Description: "d", Lines: cs}}
	}
	set := edit.Change{StartLine: 1, EndLine: 1, Text: "a: 3\n"}
	fs := []checks.Finding{
		withLines(set),
		withLines(set, edit.Change{StartLine: 3, EndLine: 3, Text: "b: 4\n"}),
		withLines(edit.Change{StartLine: 3, EndLine: 4, Text: "b: 5\n"}),
	}
	out, applied, failed := fix.Apply(src, fs)
	if want := "a: 3\n{{ if .x }}\nb: 4\n{{ end }}\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if len(applied) != 2 || len(failed) != 1 || failed[0].Finding != 2 {
		t.Errorf("applied %v, failed %v; want the first two applied and the third refused", applied, failed)
	}
	sugs, _ := fix.Suggest(src, fs)
	if len(sugs) != 1 || sugs[0].StartLine != 1 || sugs[0].EndLine != 3 {
		t.Errorf("suggestions %+v, want one covering lines 1-3 (the first two findings share a change)", sugs)
	}
}

// actionChart writes keys next to template actions: a probe filled by
// toYaml, a lifecycle block of its own under a condition, volume mounts
// that values extend.
var actionChart = rendered.Files{
	"c/Chart.yaml": []byte("apiVersion: v2\nname: actions\nversion: 0.1.0\n"),
	"c/values.yaml": []byte(`livenessProbe:
  httpGet: {path: /healthz, port: 8080}
lifecycle: {}
extraVolumeMounts: []
`),
	"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  selector:
    matchLabels:
      app: app
  template:
    metadata:
      labels:
        app: app
    spec:
      containers:
        - name: app
          image: nginx:1.27
          livenessProbe:
            {{- toYaml .Values.livenessProbe | nindent 12 }}
          {{- with .Values.lifecycle }}
          lifecycle:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            - name: data
              mountPath: /data
            {{- with .Values.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: data
          emptyDir: {}
`),
}

// TestTemplateLinesNeverInsertNextToActions checks that line changes of a
// template insert only between lines it writes as they are, never next to
// an action (where other values would put their own keys or items beside
// them), nor a key the template writes elsewhere under a condition: with
// every verified fix applied, the chart still renders to valid YAML with
// values that use each of those actions.
func TestTemplateLinesNeverInsertNextToActions(t *testing.T) {
	tmpl := "c/templates/deployment.yaml"
	var lineFixes []checks.Finding
	for _, f := range verifiedChart(t, actionChart) {
		if f.RuleID == "prestop-hook-missing" && f.Fixable() {
			t.Errorf("prestop-hook-missing has a fix, but the template writes lifecycle: itself when values ask: %+v", f.Fix)
		}
		if f.File == tmpl && f.Fix != nil && len(f.Fix.Lines) > 0 {
			lineFixes = append(lineFixes, f)
		}
	}
	if len(lineFixes) == 0 {
		t.Fatal("no line fix at all: the literal lines between name, image and livenessProbe take some")
	}
	fixed, applied, failed := fix.Apply(actionChart[tmpl], lineFixes)
	if len(applied) == 0 || len(failed) > 0 {
		t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
	}
	files := rendered.Files{}
	for p, data := range actionChart {
		files[p] = data
	}
	files[tmpl] = fixed
	files["c/values.yaml"] = []byte(`livenessProbe:
  httpGet: {path: /healthz, port: 8080}
  periodSeconds: 20
  failureThreshold: 5
lifecycle:
  preStop:
    sleep: {seconds: 5}
extraVolumeMounts:
  - name: cache
    mountPath: /cache
`)
	res, err := render.InProcess(context.Background(), files, rendered.Options{})
	if err != nil || len(res.Renders) != 1 {
		t.Fatalf("render: %v, %d renders", err, len(res.Renders))
	}
	r := res.Renders[0]
	if len(r.Problems) > 0 || len(r.Documents) != 1 {
		t.Fatalf("the fixed chart does not render with the other values: %+v\n%s", r.Problems, fixed)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(r.Documents[0].YAML, &obj); err != nil {
		t.Errorf("the fixed chart renders YAML that does not parse with the other values (%v):\n%s", err, r.Documents[0].YAML)
	}
}

// lastByRule returns the last of fs of each rule, by rule.
func lastByRule(fs []checks.Finding) map[string]checks.Finding {
	m := map[string]checks.Finding{}
	for _, f := range fs {
		m[f.RuleID] = f
	}
	return m
}

// verifiedChart checks the chart of files with the default rules, its fixes
// verified by rendering again, and returns its findings.
func verifiedChart(t *testing.T, files rendered.Files) []checks.Finding {
	t.Helper()
	var inputs []checks.Input
	for p, data := range files {
		inputs = append(inputs, checks.Input{Path: p, Data: data})
	}
	return verifiedRun(t, checks.DefaultConfig(catalog.Default()), inputs, rendered.Folder{Dir: ".", Files: files}, render.InProcess)
}

// movedChart's container ends with a key the template writes through an
// action (resources from toYaml), after which no line is written as it
// is, and holds a conditional block (ports and a readinessProbe when
// values ask for probes) between lines it writes as they are.
var movedChart = rendered.Files{
	"c/Chart.yaml":  []byte("apiVersion: v2\nname: moved\nversion: 0.1.0\n"),
	"c/values.yaml": []byte("probes: true\nresources:\n  requests: {cpu: 100m, memory: 64Mi}\n  limits: {memory: 64Mi}\n"),
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
          imagePullPolicy: IfNotPresent
          {{- if .Values.probes }}
          ports:
            - containerPort: 8080
          readinessProbe:
            tcpSocket:
              port: 8080
          {{- end }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
`),
}

// TestTemplateLinesMoveAnInsertionPastATemplatedLastKey checks that a key
// a fix inserts at the end of a mapping the template ends with an action
// is written, as template lines, before an earlier key the template
// writes as it is, outside the conditional block (where values without
// probes would drop it), and that the fixed chart renders the key with
// those values too.
func TestTemplateLinesMoveAnInsertionPastATemplatedLastKey(t *testing.T) {
	tmpl := "c/templates/deployment.yaml"
	var f *checks.Finding
	for _, x := range verifiedChart(t, movedChart) {
		if x.RuleID == "capabilities-not-dropped" {
			f = &x
		}
	}
	if f == nil || f.Fix == nil || len(f.Fix.Lines) == 0 {
		t.Fatalf("capabilities-not-dropped: %+v, want a fix of the template's lines", f)
	}
	fixed, applied, failed := fix.Apply(movedChart[tmpl], []checks.Finding{*f})
	if len(applied) != 1 || len(failed) > 0 {
		t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
	}
	// Before resources:, after the block's end: after the block's last
	// line the key would be conditional. (The document's other fixes
	// come with it: they insert there too.)
	text := string(fixed)
	end, sc, rs := strings.Index(text, "          {{- end }}\n"), strings.Index(text, "          securityContext:\n            capabilities:"), strings.Index(text, "          resources:\n")
	if end < 0 || sc < end || rs < sc {
		t.Errorf("the securityContext is not inserted between the block's end and resources:, the key written as it is after it:\n%s", fixed)
	}
	files := rendered.Files{}
	for p, data := range movedChart {
		files[p] = data
	}
	files[tmpl] = fixed
	files["c/values.yaml"] = []byte("probes: false\nresources: {}\n")
	res, err := render.InProcess(context.Background(), files, rendered.Options{})
	if err != nil || len(res.Renders) != 1 || len(res.Renders[0].Documents) != 1 {
		t.Fatalf("render: %v, %+v", err, res)
	}
	var obj struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						SecurityContext struct {
							Capabilities struct{ Drop []string }
						} `yaml:"securityContext"`
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(res.Renders[0].Documents[0].YAML, &obj); err != nil {
		t.Fatal(err)
	}
	cs := obj.Spec.Template.Spec.Containers
	if len(cs) != 1 || len(cs[0].SecurityContext.Capabilities.Drop) != 1 || cs[0].SecurityContext.Capabilities.Drop[0] != "ALL" {
		t.Errorf("with probes off, the fixed chart renders the container without drop: [ALL]:\n%s", res.Renders[0].Documents[0].YAML)
	}
}

// TestTemplateLineFixesFarApartStayApart checks that a document's fixes
// whose template lines do not overlap keep their own changes: a fix of
// one line (privileged: false) stays one change, a suggestion of its own,
// rather than carrying the pod spec's fixes written lines above it.
func TestTemplateLineFixesFarApartStayApart(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: apart\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("resources: {}\n"),
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
          securityContext:
            runAsNonRoot: true
            privileged: true
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
`),
	}
	var priv, pod *checks.Finding
	for _, f := range verifiedChart(t, files) {
		switch f.RuleID {
		case "privileged-container":
			priv = &f
		case "service-account-token-automount":
			pod = &f
		}
	}
	if pod == nil || pod.Fix == nil || len(pod.Fix.Lines) == 0 {
		t.Fatalf("service-account-token-automount: %+v, want template lines (after the pod spec's spec: line)", pod)
	}
	if priv == nil || priv.Fix == nil || len(priv.Fix.Lines) != 1 || priv.Fix.Lines[0].StartLine != 20 || priv.Fix.Lines[0].Text != "            privileged: false\n" {
		t.Fatalf("privileged-container's fix: %+v, want the one change of line 20", priv)
	}
}

// scaffoldChart is laid out as `helm create` writes a chart: the pod
// spec's and the container's keys that are written as they are
// (containers:, ports:) follow keys written through actions, and every
// key after them comes out of a `{{- with .Values.x }}` block that the
// default values leave out. (One replica: the fix of a spread over nodes
// would insert before containers: too, in the same verification.)
var scaffoldChart = rendered.Files{
	"c/Chart.yaml":  []byte("apiVersion: v2\nname: scaffold\nversion: 0.1.0\n"),
	"c/values.yaml": []byte("pullPolicy: IfNotPresent\npodSecurityContext: {}\nlivenessProbe: {}\nresources:\n  requests: {cpu: 100m, memory: 64Mi}\n  limits: {memory: 64Mi}\n"),
	"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      serviceAccountName: {{ .Chart.Name }}
      {{- with .Values.podSecurityContext }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
          imagePullPolicy: {{ .Values.pullPolicy }}
          ports:
            - name: http
              containerPort: 8080
          {{- with .Values.livenessProbe }}
          livenessProbe:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with .Values.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
`),
	"c/templates/service.yaml": []byte(`apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - port: 80
      targetPort: http
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .Chart.Name }}
`),
}

// TestTemplateLinesInsertBeforeALiteralKeyAfterABlock checks that a key a
// fix adds to a mapping whose entries after the literal ones all come
// out of `with` blocks is written just before the next literal entry
// (after a block's end, or after a line with an action), and that the
// fixed chart renders it, once, with the blocks on as with them off.
func TestTemplateLinesInsertBeforeALiteralKeyAfterABlock(t *testing.T) {
	tmpl := "c/templates/deployment.yaml"
	var fs []checks.Finding
	for _, x := range verifiedChart(t, scaffoldChart) {
		if x.RuleID == "prestop-hook-missing" || x.RuleID == "service-account-token-automount" {
			if x.Fix == nil || len(x.Fix.Lines) == 0 {
				t.Fatalf("%s: %+v, want a fix of the template's lines", x.RuleID, x.Fix)
			}
			fs = append(fs, x)
		}
	}
	if len(fs) != 2 {
		t.Fatalf("found %d of prestop-hook-missing and service-account-token-automount, want both", len(fs))
	}
	fixed, applied, failed := fix.Apply(scaffoldChart[tmpl], fs)
	if len(applied) != 2 || len(failed) > 0 {
		t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
	}
	text := string(fixed)
	// The pod's key after the block's end, before containers:; the
	// container's after imagePullPolicy's action, before ports:.
	for _, want := range []string{
		"      {{- end }}\n      automountServiceAccountToken: false\n      containers:\n",
		"          imagePullPolicy: {{ .Values.pullPolicy }}\n",
		"                seconds: 5\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the fixed template lacks %q:\n%s", want, fixed)
		}
	}
	pull, life, ports := strings.Index(text, "imagePullPolicy:"), strings.Index(text, "          lifecycle:\n"), strings.Index(text, "          ports:\n")
	if life < pull || ports < life {
		t.Errorf("lifecycle: is not inserted after imagePullPolicy: and before ports:\n%s", fixed)
	}
	for _, values := range []string{
		"pullPolicy: Always\npodSecurityContext: {fsGroup: 2000}\nlivenessProbe: {tcpSocket: {port: http}}\nresources: {requests: {cpu: 1}}\n",
		"pullPolicy: Always\npodSecurityContext: {}\nlivenessProbe: {}\nresources: {}\n",
	} {
		files := rendered.Files{}
		for p, data := range scaffoldChart {
			files[p] = data
		}
		files[tmpl] = fixed
		files["c/values.yaml"] = []byte(values)
		res, err := render.InProcess(context.Background(), files, rendered.Options{})
		if err != nil || len(res.Renders) != 1 || len(res.Renders[0].Problems) > 0 {
			t.Fatalf("render with %q: %v, %+v", values, err, res)
		}
		var doc []byte
		for _, d := range res.Renders[0].Documents {
			if d.Kind == "Deployment" {
				doc = d.YAML
			}
		}
		var obj struct {
			Spec struct {
				Template struct {
					Spec struct {
						Automount  *bool `yaml:"automountServiceAccountToken"`
						Containers []struct {
							Lifecycle struct {
								PreStop struct{ Sleep struct{ Seconds int } } `yaml:"preStop"`
							}
							Ports []struct{ Name string }
						}
					}
				}
			}
		}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatalf("the fixed chart renders no YAML with %q: %v\n%s", values, err, doc)
		}
		ps := obj.Spec.Template.Spec
		if ps.Automount == nil || *ps.Automount || len(ps.Containers) != 1 || ps.Containers[0].Lifecycle.PreStop.Sleep.Seconds != 5 || len(ps.Containers[0].Ports) != 1 {
			t.Errorf("with %q the fixed chart renders without its fixes:\n%s", values, doc)
		}
	}
}

// labelsChart writes its Deployment's labels, as `helm create` does, only
// through a helper's include; helper is the helper file's text.
func labelsChart(helper string) rendered.Files {
	return rendered.Files{
		"c/Chart.yaml":             []byte("apiVersion: v2\nname: labels\nversion: 0.1.0\n"),
		"c/values.yaml":            []byte("component: \"\"\n"),
		"c/templates/_helpers.tpl": []byte(helper),
		"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    {{- include "labels.labels" . | nindent 4 }}
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: web
  template:
    metadata:
      labels:
        {{- include "labels.labels" . | nindent 8 }}
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
`),
	}
}

// TestTemplateLinesAppendAfterAnIncludesEntries checks that keys a fix
// adds to a mapping whose entries all come from one include are written
// after that include, before the literal line that ends the mapping, and
// that they are not when the chart's helper writes one of those keys
// itself with other values, or writes values as they are (the mapping
// would hold a key twice).
func TestTemplateLinesAppendAfterAnIncludesEntries(t *testing.T) {
	plain := "{{- define \"labels.labels\" -}}\napp.kubernetes.io/name: web\napp.kubernetes.io/instance: {{ .Release.Name }}\n{{- end }}\n"
	conditional := "{{- define \"labels.labels\" -}}\napp.kubernetes.io/name: web\napp.kubernetes.io/instance: {{ .Release.Name }}\n{{- with .Values.component }}\napp.kubernetes.io/component: {{ . }}\n{{- end }}\n{{- end }}\n"
	values := "{{- define \"labels.labels\" -}}\napp.kubernetes.io/name: web\n{{- with .Values.extraLabels }}\n{{ toYaml . }}\n{{- end }}\n{{- end }}\n"
	for _, tc := range []struct {
		name, helper string
		made         bool
	}{{"plain", plain, true}, {"the helper writes a key", conditional, false}, {"the helper writes values", values, false}} {
		t.Run(tc.name, func(t *testing.T) {
			chart := labelsChart(tc.helper)
			var f *checks.Finding
			for _, x := range verifiedChart(t, chart) {
				if x.RuleID == "recommended-labels-missing" && strings.Contains(x.Fix.Description, "on the Deployment's metadata") {
					f = &x
				}
			}
			if f == nil {
				t.Fatal("no recommended-labels-missing finding with placeholders on the Deployment's metadata")
			}
			if made := len(f.Fix.Lines) > 0; made != tc.made {
				t.Fatalf("fix made: %v, want %v: %+v", made, tc.made, f.Fix)
			}
			if !tc.made {
				return
			}
			fixed, applied, failed := fix.Apply(chart["c/templates/deployment.yaml"], []checks.Finding{*f})
			if len(applied) != 1 || len(failed) > 0 {
				t.Fatalf("fix.Apply: applied %v, failed %v", applied, failed)
			}
			if !strings.Contains(string(fixed), "    {{- include \"labels.labels\" . | nindent 4 }}\n    app.kubernetes.io/version: change-me") {
				t.Errorf("the placeholders do not follow the include:\n%s", fixed)
			}
		})
	}
}

// TestTemplateLinesRemoveALineThatWritesOneKey checks that a fix removing
// a key (the deprecated serviceAccount beside serviceAccountName) whose
// value an action writes, on a line of its own that writes nothing else,
// removes that template line, and the chart renders without the key.
func TestTemplateLinesRemoveALineThatWritesOneKey(t *testing.T) {
	chart := func(line string) rendered.Files {
		return rendered.Files{
			"c/Chart.yaml":  []byte("apiVersion: v2\nname: legacy\nversion: 0.1.0\n"),
			"c/values.yaml": []byte("serviceAccount:\n  create: true\n"),
			"c/templates/_helpers.tpl": []byte(`{{- define "legacy.fullname" -}}
{{ .Release.Name }}-legacy
{{- end }}
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
{{- if .Values.serviceAccount.create }}
` + line + `
      serviceAccountName: {{ include "legacy.fullname" . }}
{{- end }}
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
`),
		}
	}
	find := func(fs []checks.Finding) checks.Finding {
		for _, f := range fs {
			if f.RuleID == "serviceaccount-missing" {
				return f
			}
		}
		t.Fatal("no serviceaccount-missing finding")
		return checks.Finding{}
	}
	f := find(verifiedChart(t, chart(`      serviceAccount: {{ include "legacy.fullname" . }}`)))
	if f.File != "c/templates/deployment.yaml" || f.Line != 16 || f.Fix == nil || len(f.Fix.Lines) != 1 ||
		f.Fix.Lines[0] != (edit.Change{StartLine: 16, EndLine: 16}) {
		t.Fatalf("serviceaccount-missing: %s:%d %+v, want line 16 removed", f.File, f.Line, f.Fix)
	}
	_, fixed := fixChart(t, chart(`      serviceAccount: {{ include "legacy.fullname" . }}`), "c/templates/deployment.yaml", []checks.Finding{f}, "prod", nil)
	if doc := string(fixed); strings.Contains(doc, "serviceAccount:") || !strings.Contains(doc, "serviceAccountName: prod-legacy\n") {
		t.Errorf("fixed chart renders:\n%s\nwant serviceAccountName alone", doc)
	}
}

// TestKeysFollowALineThatWritesOneEntry checks that keys go after a
// mapping's last entry when each of its entries is a template line of its
// own that computes its value (`release: {{ .Release.Name }}`), as older
// charts write their labels: the recommended labels' placeholders after
// the workload's last label, the name (metadata.name, as the chart
// computes it) after the pod template's, before a block that trims the
// line break before it; and not after a line whose value the next line
// may continue (`{{- if .Values.canary }}-canary{{ end }}`): after the
// entry before it.
func TestKeysFollowALineThatWritesOneEntry(t *testing.T) {
	chart := func(after string) rendered.Files {
		return rendered.Files{
			"c/Chart.yaml":  []byte("apiVersion: v2\nname: legacy\nversion: 0.1.0\n"),
			"c/values.yaml": []byte("podAnnotations:\n  team: web\n"),
			"c/templates/_helpers.tpl": []byte(`{{- define "legacy.fullname" -}}
{{ .Release.Name }}-legacy
{{- end }}
`),
			"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "legacy.fullname" . }}
  labels:
    app: {{ .Chart.Name }}
    release: {{ .Release.Name }}
spec:
  replicas: 3
  selector:
    matchLabels:
      app: {{ .Chart.Name }}
      release: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app: {{ .Chart.Name }}
        release: {{ .Release.Name }}` + after + `
      {{- with .Values.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
`),
		}
	}
	find := func(fs []checks.Finding) checks.Finding {
		for _, f := range fs {
			if f.RuleID == "recommended-labels-missing" {
				return f
			}
		}
		t.Fatal("no recommended-labels-missing finding")
		return checks.Finding{}
	}
	f := find(verifiedChart(t, chart("")))
	if f.File != "c/templates/deployment.yaml" || f.Fix == nil || len(f.Fix.Lines) != 2 || f.Fix.Lines[0].StartLine != 7 || f.Fix.Lines[1].StartLine != 18 {
		t.Fatalf("recommended-labels-missing: %s:%d %+v, want keys after lines 7 and 18", f.File, f.Line, f.Fix)
	}
	if want := "        release: {{ .Release.Name }}\n        app.kubernetes.io/name: {{ include \"legacy.fullname\" . }}\n"; f.Fix.Lines[1].Text != want {
		t.Errorf("pod template's lines:\n%s\nwant\n%s", f.Fix.Lines[1].Text, want)
	}
	var obj struct {
		Metadata struct{ Labels map[string]string }
		Spec     struct {
			Template struct {
				Metadata struct{ Labels, Annotations map[string]string }
			}
		}
	}
	fixChart(t, chart(""), "c/templates/deployment.yaml", []checks.Finding{f}, "prod", &obj)
	if got := obj.Metadata.Labels["app.kubernetes.io/instance"]; got != "change-me" {
		t.Errorf("workload's instance label %q, want the placeholder", got)
	}
	pod := obj.Spec.Template.Metadata
	if pod.Labels["app.kubernetes.io/name"] != "prod-legacy" || pod.Labels["release"] != "prod" || pod.Annotations["team"] != "web" {
		t.Errorf("pod template renders labels %v, annotations %v; want the name from the release's fullname, the labels and annotations as before", pod.Labels, pod.Annotations)
	}

	f = find(verifiedChart(t, chart("\n        {{- if .Values.canary }}-canary{{ end }}")))
	if f.Fix == nil || len(f.Fix.Lines) != 2 || f.Fix.Lines[1].StartLine != 17 {
		t.Errorf("after a value the next line may continue: %s:%d %+v, want the name after line 17, the entry before it", f.File, f.Line, f.Fix)
	}
}

// TestKeysDoNotFollowAnEntryOtherValuesContinue checks that keys are not
// put after a line that renders a whole entry only with these values: a
// pod's `volumes:`, null here, whose items a range writes on the lines
// after it when values hold some. Keys there would split the entry from
// its items.
func TestKeysDoNotFollowAnEntryOtherValuesContinue(t *testing.T) {
	chart := rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: volumes\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("extraVolumes: []\nresources:\n  requests: {cpu: 100m, memory: 64Mi}\n  limits: {memory: 64Mi}\n"),
		"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
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
          resources: {{ toYaml .Values.resources | nindent 12 }}
      volumes:
      {{- range .Values.extraVolumes }}
        - name: {{ .name }}
          emptyDir: {}
      {{- end }}
`),
	}
	placed := 0
	for _, f := range verifiedChart(t, chart) {
		if f.Fix == nil || f.File != "c/templates/deployment.yaml" {
			continue
		}
		for _, c := range f.Fix.Lines {
			placed++
			if c.StartLine == 21 && c.Text != "      volumes:\n" && strings.HasPrefix(c.Text, "      volumes:\n") {
				t.Errorf("%s: %+v, keys after `volumes:`", f.RuleID, c)
			}
		}
	}
	if placed == 0 {
		t.Error("no fix changes the template's lines: the pod spec's keys go before `volumes:`")
	}
}

// TestTemplateLinesKeepCRLF checks that the fixes of a template written
// with CRLF line endings write CRLF too, copies of its lines included (a
// spread constraint's selector, assembled from lines whose endings were
// cut).
func TestTemplateLinesKeepCRLF(t *testing.T) {
	files := rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: crlf\nversion: 0.1.0\n"),
		"c/values.yaml": []byte("{}\n"),
		"c/templates/deployment.yaml": []byte(strings.ReplaceAll(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: {{ .Chart.Name }}
spec:
  replicas: 3
  selector:
    matchLabels:
      app: {{ .Chart.Name }}
      release: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app: {{ .Chart.Name }}
        release: {{ .Release.Name }}
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
`, "\n", "\r\n")),
	}
	placed := 0
	for _, f := range verifiedChart(t, files) {
		if f.Fix == nil {
			continue
		}
		for _, c := range f.Fix.Lines {
			placed++
			if n := strings.Count(c.Text, "\n"); n != strings.Count(c.Text, "\r\n") {
				t.Errorf("%s: %q, a line ending without CR", f.RuleID, c.Text)
			}
		}
		if f.RuleID == "spread-missing" && len(f.Fix.Lines) == 0 {
			t.Errorf("spread-missing: %+v, want its lines placed", f.Fix)
		}
	}
	if placed == 0 {
		t.Error("no fix changes the template's lines")
	}
}
