package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckAndFixAgreeOnAFixTheChartRefuses runs `prodready check` and
// `prodready fix` as processes on a chart shaped like grafana's
// loki-distributed: one replica behind a Service, and a
// PodDisruptionBudget template that fails when replicas rise without
// maxUnavailable. Raising replicas is the replicas-too-few fix, which fix
// withholds because the chart cannot be rendered with it; check says the
// same, with the same reason, and does not report the PodDisruptionBudget
// the fix's follow-up would claim is missing once replicas rise (they
// will not rise).
func TestCheckAndFixAgreeOnAFixTheChartRefuses(t *testing.T) {
	const reason = "maxUnavailable must be set when replicaCount is greater than 1"
	files := map[string]string{
		"web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"web/values.yaml": "replicaCount: 1\nmaxUnavailable: null\n",
		"web/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: {{ .Values.replicaCount }}
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
          image: nginx:1.27
          ports:
            - containerPort: 8080
`,
		"web/templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - port: 80
      targetPort: 8080
`,
		"web/templates/pdb.yaml": `{{- if gt (int .Values.replicaCount) 1 }}
{{- if not .Values.maxUnavailable }}{{ fail "` + reason + `" }}{{ end }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  maxUnavailable: {{ .Values.maxUnavailable }}
  selector:
    matchLabels:
      app: web
{{- end }}
`,
	}
	dir := writeRepo(t, files)
	out, errOut, _ := runCLI(t, dir, "check", "--format", "json", "web")
	var rep struct {
		Findings []struct {
			Rule, File string
			Line       int
			Fix        *struct{ Description, Withheld string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --format json: %v\n%s\n%s", err, out, errOut)
	}
	replicas := 0
	for _, f := range rep.Findings {
		switch f.Rule {
		case "pdb-missing":
			t.Errorf("check reports pdb-missing at %s:%d, a follow-up of a replicas fix the chart cannot be rendered with", f.File, f.Line)
		case "replicas-too-few":
			replicas++
			if f.Fix == nil || !strings.Contains(f.Fix.Withheld, reason) {
				t.Errorf("check's replicas-too-few fix at %s:%d: %+v, want it withheld with the chart's reason %q", f.File, f.Line, f.Fix, reason)
			}
		}
	}
	if replicas != 1 {
		t.Fatalf("check reports %d replicas-too-few findings, want 1:\n%s", replicas, out)
	}

	out, errOut, code := runCLI(t, dir, "fix", "--rule", "replicas-too-few", "--diff", "web")
	if code != 0 || strings.Contains(out, "replicaCount: 3") || !strings.Contains(errOut+out, "withheld: rendering the chart again with it") || !strings.Contains(errOut+out, reason) {
		t.Errorf("fix --rule replicas-too-few (exit %d) should withhold the fix with the chart's reason:\n%s\n%s", code, out, errOut)
	}
}
