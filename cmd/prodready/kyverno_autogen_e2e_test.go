package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// kyvernoRepo is a repository with a Kyverno ValidatingPolicy written for
// Pods, a Deployment and a chart's StatefulSet that break it, and a
// PolicyException that exempts one Deployment.
var kyvernoRepo = map[string]string{
	"policies/registry.yaml": `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: approved-registry
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods"]
  validations:
    - expression: "object.spec.containers.all(c, c.image.startsWith('ghcr.io/acme/'))"
      message: images come from ghcr.io/acme
---
apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata:
  name: legacy-registry
  namespace: shop
spec:
  policyRefs:
    - {name: approved-registry, kind: ValidatingPolicy}
  matchConditions:
    - name: legacy-only
      expression: "object.metadata.name == 'legacy'"
`,
	"apps/web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: docker.io/acme/web:1.0.0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: legacy
  namespace: shop
spec:
  selector:
    matchLabels: {app: legacy}
  template:
    metadata:
      labels: {app: legacy}
    spec:
      containers:
        - name: legacy
          image: docker.io/acme/legacy:1.0.0
`,
	"charts/db/Chart.yaml":  "apiVersion: v2\nname: db\nversion: 1.0.0\n",
	"charts/db/values.yaml": "image: quay.io/acme/db:1.0.0\n",
	"charts/db/templates/sts.yaml": `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ .Release.Name }}-db
  namespace: shop
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
        - name: db
          image: {{ .Values.image }}
`,
}

// TestKyvernoAutogenAndExceptionsAsProcess runs check as a process on a
// repository whose Kyverno ValidatingPolicy is written for Pods: the
// Deployment and the chart's StatefulSet are refused at their pod
// template's lines (Kyverno's autogen), and the Deployment a
// PolicyException exempts is no finding, listed as exempted with the
// exception's line in JSON and in text with -v.
func TestKyvernoAutogenAndExceptionsAsProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs prodready check as a process; skipped with -short")
	}
	repo := writeRepo(t, kyvernoRepo)
	out, errOut, code := runCLI(t, repo, "check", "-o", "json", ".")
	if code != 1 {
		t.Fatalf("check exited %d, want 1: %s", code, errOut)
	}
	var rep struct {
		Findings []cliFinding
		Summary  struct {
			Exempted []struct {
				Finding   cliFinding
				By        string
				Exception string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check -o json: %v\n%s", err, out)
	}
	got := byKey(rep.Findings)
	for key, want := range map[string]string{
		"apps/web.yaml:13 policy/approved-registry":                "images come from ghcr.io/acme (ValidatingPolicy approved-registry at policies/registry.yaml:2, its pod-controller autogen for DaemonSet, Deployment, Job, ReplicaSet, StatefulSet: Deny)",
		"charts/db/templates/sts.yaml:14 policy/approved-registry": "images come from ghcr.io/acme",
	} {
		if f, ok := got[key]; !ok || f.Severity != "error" || !strings.Contains(f.Message, want) {
			t.Errorf("%s: %+v, want an error with %q", key, f, want)
		}
	}
	for _, f := range rep.Findings {
		if f.Object.Name == "legacy" && f.Rule == "policy/approved-registry" {
			t.Errorf("the exempted Deployment is a finding: %s", f.Message)
		}
	}
	if len(rep.Summary.Exempted) != 1 {
		t.Fatalf("exempted = %+v, want the legacy Deployment", rep.Summary.Exempted)
	}
	e := rep.Summary.Exempted[0]
	if e.Finding.Object.Name != "legacy" || e.Finding.File != "apps/web.yaml" || e.Finding.Line != 29 || e.By != "Kyverno PolicyException shop/legacy-registry" || e.Exception != "policies/registry.yaml:18" {
		t.Errorf("exempted = %+v, want legacy at apps/web.yaml:29 by shop/legacy-registry at policies/registry.yaml:18", e)
	}

	text, _, _ := runCLI(t, repo, "check", "-v", ".")
	if !strings.Contains(text, "Exempted by the repository's exceptions (the cluster admits them): 1 finding\n  apps/web.yaml:29  Deployment legacy  policy/approved-registry, by Kyverno PolicyException shop/legacy-registry at policies/registry.yaml:18\n") {
		t.Errorf("check -v does not list the exempted finding:\n%s", text)
	}
}
