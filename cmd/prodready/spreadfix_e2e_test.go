package main

import (
	"strings"
	"testing"
)

// spreadDeployment is a Deployment of three replicas behind a Service
// with no spreading; instance is its app.kubernetes.io/instance label.
func spreadDeployment(instance string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/name: web
      app.kubernetes.io/instance: ` + instance + `
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web
        app.kubernetes.io/instance: ` + instance + `
    spec:
      containers:
        - name: web
          image: nginx:1.27
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app.kubernetes.io/name: web
  ports:
    - port: 80
`
}

// TestFixSpreadsAnOverlayAndWithholdsAReleaseName runs `prodready fix
// --rule spread-missing` as a process. On a kustomize overlay the fix (a
// topologySpreadConstraint over nodes) is written into the base: the
// spread-zone-missing finding it brings is its announced follow-up, not a
// reason to withhold it (before, every spread fix of an overlay or chart
// was withheld for it). On a chart whose selector names the release in
// lines of its own, the fix selects the pods as those lines do; where it
// can only write the name the chart was rendered with into the template,
// it is withheld, saying so.
func TestFixSpreadsAnOverlayAndWithholdsAReleaseName(t *testing.T) {
	overlay := writeRepo(t, map[string]string{
		"base/kustomization.yaml": "resources:\n  - web.yaml\n",
		"base/web.yaml":           spreadDeployment("web"),
		"prod/kustomization.yaml": "resources:\n  - ../base\n",
	})
	out, errOut, code := runCLI(t, overlay, "fix", "--rule", "spread-missing", "--diff", ".")
	if code != 0 || !strings.Contains(out, "+++ b/base/web.yaml") || !strings.Contains(out, "+          topologyKey: kubernetes.io/hostname") || strings.Contains(errOut, "withheld") {
		t.Errorf("fix --rule spread-missing on the overlay (exit %d) should spread the base's pods over nodes:\n%s\n%s", code, out, errOut)
	}

	// The selector's lines name the release through an action: the
	// constraint's labelSelector is written as those lines.
	chart := writeRepo(t, map[string]string{
		"web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":               "{}\n",
		"web/templates/deployment.yaml": spreadDeployment("{{ .Release.Name }}"),
	})
	out, errOut, code = runCLI(t, chart, "fix", "--rule", "spread-missing", "--diff", "web")
	if code != 0 || !strings.Contains(out, "+              app.kubernetes.io/instance: {{ .Release.Name }}\n") || strings.Contains(out, "instance: release") {
		t.Errorf("fix --rule spread-missing on the chart (exit %d) should select the pods as the selector's lines do:\n%s\n%s", code, out, errOut)
	}

	// Written as flow mappings, two labels on one line, the selector and
	// the pod's labels have no lines of their own to copy: the fix would
	// write the name the chart was rendered with into the template, and
	// is withheld.
	flow := strings.Replace(spreadDeployment("{{ .Release.Name }}"), "    matchLabels:\n      app.kubernetes.io/name: web\n      app.kubernetes.io/instance: {{ .Release.Name }}\n",
		"    matchLabels: {app.kubernetes.io/name: web, app.kubernetes.io/instance: {{ .Release.Name }}}\n", 1)
	flow = strings.Replace(flow, "      labels:\n        app.kubernetes.io/name: web\n        app.kubernetes.io/instance: {{ .Release.Name }}\n",
		"      labels: {app.kubernetes.io/name: web, app.kubernetes.io/instance: {{ .Release.Name }}}\n", 1)
	chart = writeRepo(t, map[string]string{
		"web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml":               "{}\n",
		"web/templates/deployment.yaml": flow,
	})
	out, errOut, code = runCLI(t, chart, "fix", "--rule", "spread-missing", "--diff", "web")
	if code != 0 || strings.Contains(out, "topologySpreadConstraints") || !strings.Contains(errOut, `spread-missing: withheld: its edit writes "release", which the render took from the release's name`) {
		t.Errorf("fix --rule spread-missing on the flow selector's chart (exit %d) should withhold the fix that writes the release's name:\n%s\n%s", code, out, errOut)
	}
}

// TestFixWithholdsWhatOverlaysWriteDifferently runs `prodready fix` as a
// process on a base two overlays build with their own commonLabels: the
// spread constraint's labelSelector each overlay's build gives differs
// (env: prod, env: staging), and written into the base, either would
// select nothing in the other overlay. The fix is withheld, naming the
// overlays, not written twice.
func TestFixWithholdsWhatOverlaysWriteDifferently(t *testing.T) {
	repo := writeRepo(t, map[string]string{
		"base/kustomization.yaml":    "resources:\n  - web.yaml\n",
		"base/web.yaml":              spreadDeployment("web"),
		"prod/kustomization.yaml":    "resources:\n  - ../base\ncommonLabels:\n  env: prod\n",
		"staging/kustomization.yaml": "resources:\n  - ../base\ncommonLabels:\n  env: staging\n",
	})
	out, errOut, code := runCLI(t, repo, "fix", "--rule", "spread-missing", "--diff", ".")
	if code != 0 || strings.Contains(out, "topologySpreadConstraints") || !strings.Contains(errOut, "spread-missing: withheld: the overlays that build this line (the overlay prod, the overlay staging) would each write it differently") {
		t.Errorf("fix --rule spread-missing (exit %d) should withhold the fix the overlays write differently:\n%s\n%s", code, out, errOut)
	}
}

// TestFixRaisesAnHPAsMinimumInAnOverlay runs `prodready fix --rule
// hpa-min-replicas-too-low` as a process on an overlay whose base holds a
// Deployment and an HPA with minReplicas: 1 (podinfo's deploy/bases are
// built so). Two pods at the least make spreading and a disruption budget
// matter for the Deployment: those findings are the fix's announced
// follow-ups on the workload it scales, not a reason to withhold it
// (before, fix withheld it: "brings spread-missing on Deployment").
func TestFixRaisesAnHPAsMinimumInAnOverlay(t *testing.T) {
	repo := writeRepo(t, map[string]string{
		"base/kustomization.yaml": "resources:\n  - web.yaml\n  - hpa.yaml\n",
		"base/web.yaml":           strings.Replace(spreadDeployment("web"), "  replicas: 3\n", "", 1),
		"base/hpa.yaml": `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 1
  maxReplicas: 4
`,
		"prod/kustomization.yaml": "resources:\n  - ../base\n",
	})
	out, errOut, code := runCLI(t, repo, "fix", "--rule", "hpa-min-replicas-too-low", "--diff", ".")
	if code != 0 || !strings.Contains(out, "+  minReplicas: 2") || strings.Contains(errOut, "withheld") {
		t.Errorf("fix --rule hpa-min-replicas-too-low (exit %d) should raise the HPA's minimum:\n%s\n%s", code, out, errOut)
	}
}
