package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// webhookChart is a chart whose values.yaml line 2 sets the timeout of
// both its webhooks, a mutating and a validating one of the same name (as
// cert-manager's chart does): one line, two objects, one finding each.
func webhookChart() map[string]string {
	var tpl strings.Builder
	for _, kind := range []string{"Mutating", "Validating"} {
		tpl.WriteString("---\napiVersion: admissionregistration.k8s.io/v1\nkind: " + kind + "WebhookConfiguration\nmetadata:\n  name: {{ .Release.Name }}-hooks\n" +
			"webhooks:\n- name: hooks.example.com\n  admissionReviewVersions: [\"v1\"]\n  sideEffects: None\n  timeoutSeconds: {{ .Values.webhook.timeoutSeconds }}\n" +
			"  clientConfig:\n    service: {name: hooks, namespace: default, path: /hook}\n")
	}
	return map[string]string{
		".prodready.yaml":            testconfig.OnlyRule("webhook-timeout"),
		"chart/Chart.yaml":           "apiVersion: v2\nname: hooks\nversion: 0.1.0\n",
		"chart/values.yaml":          "webhook:\n  timeoutSeconds: 30\n",
		"chart/templates/hooks.yaml": tpl.String(),
	}
}

// The messages of the two findings at values.yaml line 2: each names its
// object, since the rest of the two is the same.
const (
	mutatingTimeout   = "MutatingWebhookConfiguration release-hooks: the timeout of webhook \"hooks.example.com\" is 30s"
	validatingTimeout = "ValidatingWebhookConfiguration release-hooks: the timeout of webhook \"hooks.example.com\" is 30s"
)

// TestCheckNamesTheObjectsOfOneValuesLine runs check as a process on a
// chart whose one values line sets both its webhooks' timeouts: two
// findings at that line, each beginning with its object.
func TestCheckNamesTheObjectsOfOneValuesLine(t *testing.T) {
	dir := writeRepo(t, webhookChart())
	stdout, stderr, _ := runCLI(t, dir, "check", "-o", "json", ".")
	var out struct {
		Findings []struct {
			Rule, File, Message string
			Line                int
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("not JSON: %v\n%s\n%s", err, stdout, stderr)
	}
	if len(out.Findings) != 2 {
		t.Fatalf("findings = %+v, want one per webhook configuration", out.Findings)
	}
	for i, want := range []string{mutatingTimeout, validatingTimeout} {
		if f := out.Findings[i]; f.File != "chart/values.yaml" || f.Line != 2 || !strings.HasPrefix(f.Message, want) {
			t.Errorf("finding %d = %s:%d %q, want chart/values.yaml:2 %q…", i, f.File, f.Line, f.Message, want)
		}
	}
}

// TestServeSaysOnceWhatOneValuesLineMakesOfTwoObjects runs serve as a
// process (renders in its child) on a pull request that adds that chart.
// The review has one thread at values.yaml line 2, naming both webhook
// configurations, saying the finding once, suggesting the timeout once,
// and carrying both findings' fingerprints. (It merged the two into one
// finding of the first object, "rendered from the chart chart, the chart
// chart".)
func TestServeSaysOnceWhatOneValuesLineMakesOfTwoObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	base := map[string]string{".prodready.yaml": testconfig.OnlyRule("webhook-timeout"), "README.md": "hooks\n"}
	cm := onlyComment(t, reviewOpened(t, base, webhookChart()))
	if cm.Path != "chart/values.yaml" || cm.Line != 2 ||
		!strings.Contains(cm.Body, "2 findings in MutatingWebhookConfiguration `release-hooks` and ValidatingWebhookConfiguration `release-hooks`") ||
		strings.Count(cm.Body, "- :warning: `webhook-timeout`: the timeout of webhook \"hooks.example.com\" is 30s") != 1 ||
		strings.Count(cm.Body, "```suggestion") != 1 || strings.Count(cm.Body, "prodready:fp=") != 2 || strings.Contains(cm.Body, "the chart chart,") {
		t.Errorf("comment = %s:%d\n%s\nwant one at chart/values.yaml:2 naming both objects, saying the finding and suggesting once, with two fingerprints", cm.Path, cm.Line, cm.Body)
	}
}

// containerChart is a chart whose template writes its container at line
// 12, where lines the render drops come before it (an if, a comment), so
// the container is at another line of the rendered text.
func containerChart() map[string]string {
	return map[string]string{
		".prodready.yaml":   testconfig.OnlyRule("cpu-requests-missing"),
		"chart/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"chart/values.yaml": "image: nginx:1.27\n",
		"chart/templates/deployment.yaml": "{{- if true }}\n# the web tier\n# (one Deployment)\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" +
			"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: {{ .Values.image }}\n{{- end }}\n",
	}
}

// sortedPodChart is a chart whose pod template goes through fromYaml |
// toYaml, as traefik's does: its container comes out with its keys
// sorted, args first, while its helper writes the container's name at
// line 8 of _pod.tpl.
func sortedPodChart() map[string]string {
	return map[string]string{
		".prodready.yaml":   testconfig.OnlyRule("cpu-requests-missing"),
		"chart/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"chart/values.yaml": "image: nginx:1.27\n",
		"chart/templates/_pod.tpl": "{{- define \"web.pod\" -}}\nmetadata:\n  labels:\n    app: web\nspec:\n  containers:\n  - image: {{ .Values.image }}\n    name: web\n" +
			"    args:\n    - --port=8080\n{{- end }}\n",
		"chart/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n" +
			"  template:\n    {{- include \"web.pod\" . | fromYaml | toYaml | nindent 4 }}\n",
	}
}

// valuesResourcesChart is a chart whose container takes its resources
// from values.yaml line 3 (resources: {}): both request findings of the
// container are fixed on that line.
func valuesResourcesChart() map[string]string {
	files := containerChart()
	files[".prodready.yaml"] = testconfig.OnlyRules("cpu-requests-missing", "memory-requests-missing")
	files["chart/values.yaml"] = "image: nginx:1.27\n\nresources: {}\n"
	files["chart/templates/deployment.yaml"] = strings.Replace(files["chart/templates/deployment.yaml"], "        image: {{ .Values.image }}\n",
		"        image: {{ .Values.image }}\n        resources: {{- toYaml .Values.resources | nindent 10 }}\n", 1)
	return files
}

// twiceBuiltBase is an overlay that builds one base twice, under two name
// prefixes: each line of the base makes two Deployments.
func twiceBuiltBase() map[string]string {
	return map[string]string{
		".prodready.yaml":                 testconfig.OnlyRule("cpu-requests-missing"),
		"deploy/kustomization.yaml":       "resources:\n- blue\n- green\n",
		"deploy/blue/kustomization.yaml":  "namePrefix: blue-\nresources:\n- ../base\n",
		"deploy/green/kustomization.yaml": "namePrefix: green-\nresources:\n- ../base\n",
		"deploy/base/kustomization.yaml":  "resources:\n- deployment.yaml\n",
		"deploy/base/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n" +
			"    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n",
	}
}

// twiceBuiltPod is twiceBuiltBase with a bare Pod for its base: the
// naked-pod finding names each Pod in its message.
func twiceBuiltPod() map[string]string {
	files := twiceBuiltBase()
	files[".prodready.yaml"] = testconfig.OnlyRule("naked-pod")
	delete(files, "deploy/base/deployment.yaml")
	files["deploy/base/kustomization.yaml"] = "resources:\n- pod.yaml\n"
	files["deploy/base/pod.yaml"] = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: nginx:1.27\n"
	return files
}

// TestServeAnchorsARenderedContainersThreadOnItsLine runs serve as a
// process on pull requests that add a chart and an overlay that builds
// one base twice. A container's thread is at the line that writes the
// container's name (it was at the container's line in the rendered text,
// another line of the template; a container whose keys toYaml sorts
// starts at another key's line; a container's findings fixed on one
// values line are one thread there), and the two Deployments the base's container
// line makes share one thread that names them both, as do the two bare
// Pods whose findings differ only in the Pod's name.
func TestServeAnchorsARenderedContainersThreadOnItsLine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	for _, c := range []struct {
		name     string
		head     map[string]string
		path     string
		line     int
		what     string
		findings int
	}{
		{"chart", containerChart(), "chart/templates/deployment.yaml", 14, "container \"web\" has no CPU request", 1},
		{"pod template through toYaml", sortedPodChart(), "chart/templates/_pod.tpl", 8, "container \"web\" has no CPU request", 1},
		{"resources from values", valuesResourcesChart(), "chart/values.yaml", 3, "2 findings in container `web` of Deployment `web`", 2},
		{"base built twice", twiceBuiltBase(), "deploy/base/deployment.yaml", 11, "container `web` of Deployment `blue-web` and Deployment `green-web`", 2},
		{"pod built twice", twiceBuiltPod(), "deploy/base/pod.yaml", 2, "2 findings in Pod `blue-web` and Pod `green-web`", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := map[string]string{".prodready.yaml": c.head[".prodready.yaml"], "README.md": "web\n"}
			cm := onlyComment(t, reviewOpened(t, base, c.head))
			first := cm.Line // the line a thread starts at: a suggestion's first
			if cm.StartLine > 0 {
				first = cm.StartLine
			}
			if cm.Path != c.path || first != c.line || !strings.Contains(cm.Body, c.what) || strings.Count(cm.Body, "prodready:fp=") != c.findings {
				t.Errorf("comment = %s:%d-%d\n%s\nwant one from %s:%d about %s with %d fingerprints", cm.Path, cm.StartLine, cm.Line, cm.Body, c.path, c.line, c.what, c.findings)
			}
		})
	}
}

// onlyComment is the one inline comment of the reviews fake holds; the
// test fails when there is not exactly one.
func onlyComment(t *testing.T, fake *fakegithub.Server) fakegithub.Comment {
	t.Helper()
	var comments []fakegithub.Comment
	for _, rv := range fake.Reviews("acme", "web") {
		comments = append(comments, rv.Comments...)
	}
	if len(comments) != 1 {
		t.Fatalf("comments = %+v, want one thread", comments)
	}
	return comments[0]
}
