package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckAndFixAgreeOnAFixTheChartRefuses runs `prodready check` and
// `prodready fix` as processes on a chart shaped like grafana's
// loki-distributed: one replica behind a Service (claimsChart), and a
// PodDisruptionBudget template that fails when replicas rise without
// maxUnavailable. Raising replicas is the replicas-too-few fix, which fix
// withholds because the chart cannot be rendered with it; check says the
// same, with the same reason, and does not report the PodDisruptionBudget
// the fix's follow-up would claim is missing once replicas rise (they
// will not rise).
func TestCheckAndFixAgreeOnAFixTheChartRefuses(t *testing.T) {
	const reason = "maxUnavailable must be set when replicaCount is greater than 1"
	dir := claimsChart(t, false)
	pdb := `{{- if gt (int .Values.replicaCount) 1 }}
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
`
	if err := os.WriteFile(filepath.Join(dir, "templates", "pdb.yaml"), []byte(pdb), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := runCLI(t, dir, "check", "--format", "json", ".")
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

	out, errOut, code := runCLI(t, dir, "fix", "--rule", "replicas-too-few", "--diff", ".")
	if code != 0 || strings.Contains(out, "replicaCount: 3") || !strings.Contains(errOut+out, "withheld: rendering the chart again with it") || !strings.Contains(errOut+out, reason) {
		t.Errorf("fix --rule replicas-too-few (exit %d) should withhold the fix with the chart's reason:\n%s\n%s", code, out, errOut)
	}
}
