package rendered_test

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/rendered"
)

// TestProbeOnAConditionalPortIsWithheld checks that a chart's probe fix
// naming a port the template writes only under a condition (metrics on)
// is withheld, saying so, while the same fix on a port written whatever
// the values is made: with metrics off the first probe would name a port
// the container no longer has, and the kubelet would restart it forever.
func TestProbeOnAConditionalPortIsWithheld(t *testing.T) {
	for _, tc := range []struct {
		name, ports string
		made        bool
	}{
		{"conditional", "          {{- if .Values.metrics }}\n          ports:\n            - name: metrics\n              containerPort: 9402\n          {{- end }}\n", false},
		{"always", "          ports:\n            - name: metrics\n              containerPort: 9402\n          {{- if .Values.metrics }}\n          args: [--metrics]\n          {{- end }}\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := rendered.Files{
				"c/Chart.yaml":  []byte("apiVersion: v2\nname: reads\nversion: 0.1.0\n"),
				"c/values.yaml": []byte("metrics: true\n"),
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
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
` + tc.ports + `          env:
            - name: MODE
              value: serve
`),
			}
			var live bool
			for _, f := range verifiedChart(t, files) {
				if f.RuleID != "liveness-probe-missing" {
					continue
				}
				live = true
				made := f.Fix != nil && len(f.Fix.Lines) > 0
				if made != tc.made {
					t.Fatalf("fix made: %v, want %v: %+v", made, tc.made, f.Fix)
				}
				if !tc.made && !strings.Contains(f.Fix.Withheld, "ports[0], which the template writes (line 20) only inside the block at line 18") {
					t.Errorf("withheld %q, want why: the port is written only inside the block", f.Fix.Withheld)
				}
			}
			if !live {
				t.Fatal("no liveness-probe-missing finding")
			}
		})
	}
}
