package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claimsChart is a chart whose Deployment runs one replica behind a
// Service and that renders its own PodDisruptionBudget once replicas rise
// above 1, as ingress-nginx and kyverno do; pdb is that template.
func claimsChart(t *testing.T, pdb bool) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"values.yaml": "replicaCount: 1\n",
		"templates/deployment.yaml": `apiVersion: apps/v1
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
          image: nginx:1.27.0
          ports:
            - containerPort: 80
`,
		"templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - port: 80
`,
	}
	if pdb {
		files["templates/pdb.yaml"] = `{{- if gt (int .Values.replicaCount) 1 }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app: web
{{- end }}
`
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestClaimsAreRenderedFirst runs prodready check as a process: pdb-missing
// says no PodDisruptionBudget will select the pods "once the
// replicas-too-few fix is applied" only when a render of the chart with
// that fix (replicaCount: 3) really has none; a chart that renders its own
// PDB when replicas rise gets the replicas finding alone. The real
// ingress-nginx chart is one of those.
func TestClaimsAreRenderedFirst(t *testing.T) {
	for _, tc := range []struct {
		pdb  bool
		want bool // pdb-missing reported
	}{{pdb: true, want: false}, {pdb: false, want: true}} {
		fs, _ := checkJSON(t, claimsChart(t, tc.pdb), ".")
		rules := countRules(fs)
		if rules["replicas-too-few"] != 1 {
			t.Errorf("chart with its own PDB template %v: replicas-too-few %d times, want once: %v", tc.pdb, rules["replicas-too-few"], rules)
		}
		if got := rules["pdb-missing"] > 0; got != tc.want {
			t.Errorf("chart with its own PDB template %v: pdb-missing reported %v, want %v: %v", tc.pdb, got, tc.want, rules)
		}
	}
	dir, err := filepath.Abs(filepath.Join(chartsMore, "ingress-nginx"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared corpus absent: charts-more")
	}
	fs, _ := checkJSON(t, dir, ".")
	for _, f := range fs {
		if f.Rule == "pdb-missing" && strings.Contains(f.Message, "once") {
			t.Errorf("ingress-nginx renders a PDB when replicas > 1, yet: %s %s", f.key(), f.Message)
		}
	}
	if countRules(fs)["replicas-too-few"] == 0 {
		t.Errorf("ingress-nginx: no replicas-too-few finding, so the claim was not exercised")
	}
}

// TestKyvernoClaimsAreRenderedFirst runs prodready check as a process on
// the real kyverno chart, whose replicas go through a helper given one
// values key (`{{ template "kyverno.deployment.replicas"
// .Values.admissionController.replicas }}`): that key is where the
// replicas finding sits (`replicas: ~` in values.yaml), so its fix is a
// values edit the chart can be rendered with, and since the chart renders
// a PodDisruptionBudget once replicas exceed 1, no pdb-missing claim is
// made about it.
func TestKyvernoClaimsAreRenderedFirst(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join(chartsMore, "kyverno"))
	if err != nil {
		t.Fatal(err)
	}
	values, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		t.Skip("../shared corpus absent: charts-more/kyverno")
	}
	// The line of admissionController's own replicas key.
	want := 0
	in := false
	for i, l := range strings.Split(string(values), "\n") {
		if strings.HasPrefix(l, "admissionController:") {
			in = true
		} else if in && l != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "#") {
			in = false
		}
		if in && strings.HasPrefix(l, "  replicas:") {
			want = i + 1
		}
	}
	fs, _ := checkJSON(t, dir, ".")
	found := false
	for _, f := range fs {
		if f.Rule == "replicas-too-few" && f.Object.Name == "kyverno-admission-controller" && f.File == "values.yaml" {
			found = f.Line == want
			if !found {
				t.Errorf("replicas-too-few on the admission controller at values.yaml:%d, want :%d (admissionController.replicas)", f.Line, want)
			}
		}
		if f.Rule == "pdb-missing" && strings.Contains(f.Message, "once") {
			t.Errorf("kyverno renders a PDB when replicas > 1, yet: %s %s", f.key(), f.Message)
		}
	}
	if !found && want > 0 {
		t.Errorf("no replicas-too-few on the admission controller at values.yaml:%d: %v", want, keysOf(byKey(fs)))
	}
}
