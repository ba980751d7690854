package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// twentyPolicies are 20 ValidatingAdmissionPolicies with their bindings,
// of the shapes platform teams write: labels, images, replicas, probes,
// resources and Service ports, with variables and messageExpressions, on
// Deployments, StatefulSets, DaemonSets, Services and ConfigMaps.
func twentyPolicies() string {
	shapes := []struct{ resources, expression string }{
		{`["deployments", "statefulsets", "daemonsets"]`, `has(object.metadata.labels) && 'team' in object.metadata.labels`},
		{`["deployments", "statefulsets", "daemonsets"]`, `object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))`},
		{`["deployments", "statefulsets", "daemonsets"]`, `object.spec.template.spec.containers.all(c, c.image.startsWith('ghcr.io/') || c.image.startsWith('quay.io/') || c.image.startsWith('registry.k8s.io/'))`},
		{`["deployments"]`, `!has(object.spec.replicas) || object.spec.replicas <= 50`},
		{`["deployments", "statefulsets"]`, `object.spec.template.spec.containers.all(c, has(c.readinessProbe))`},
		{`["deployments", "statefulsets", "daemonsets"]`, `object.spec.template.spec.containers.all(c, has(c.resources) && has(c.resources.limits) && 'memory' in c.resources.limits)`},
		{`["services"]`, `!has(object.spec.ports) || object.spec.ports.all(p, p.port != 22)`},
		{`["configmaps"]`, `!has(object.data) || object.data.size() < 200`},
		{`["deployments", "statefulsets", "daemonsets"]`, `!has(object.spec.template.spec.hostNetwork) || !object.spec.template.spec.hostNetwork`},
		{`["deployments", "statefulsets", "daemonsets"]`, `variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || !c.securityContext.privileged)`},
	}
	var b strings.Builder
	for i := range 20 {
		s := shapes[i%len(shapes)]
		name := fmt.Sprintf("bench-policy-%02d", i)
		fmt.Fprintf(&b, `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: %s
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["", "apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: %s
  variables:
    - name: containers
      expression: "has(object.spec) && has(object.spec.template) ? object.spec.template.spec.containers : []"
  validations:
    - expression: %q
      messageExpression: "'%s refuses ' + object.metadata.name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: %s
spec:
  policyName: %s
  validationActions: [Deny]
`, name, s.resources, s.expression, name, name, name)
	}
	return b.String()
}

// corpus returns the plain manifests of ../shared/corpus (Helm templates
// left out: they are not YAML).
func corpus(b *testing.B) []checks.Input {
	all, err := checks.Load([]string{checkstest.Shared(b, "corpus")}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var out []checks.Input
	for _, in := range all {
		if !strings.Contains(in.Path, "/helm-templates/") {
			out = append(out, in)
		}
	}
	return out
}

// BenchmarkCorpus and BenchmarkCorpusWith20Policies are check's whole job
// over the plain corpus, without and with 20 policies of the repository:
// their ratio is what the policies cost (the goal is at most +20%).
func BenchmarkCorpus(b *testing.B) {
	inputs := corpus(b)
	cfg := checks.DefaultConfig(catalog.Default())
	b.ResetTimer()
	for b.Loop() {
		checks.Run(inputs, cfg, checks.Options{})
	}
}

func BenchmarkCorpusWith20Policies(b *testing.B) {
	inputs := append(corpus(b), checks.Input{Path: "platform/policies.yaml", Data: []byte(twentyPolicies())})
	cfg := checks.DefaultConfig(catalog.Default())
	res := checks.Run(inputs, cfg, checks.Options{})
	refused := 0
	for _, f := range res.Findings {
		if strings.HasPrefix(f.RuleID, "policy/bench-policy-") {
			refused++
		}
	}
	if refused == 0 {
		b.Fatal("the 20 policies refused nothing in the corpus: they are not evaluated")
	}
	b.ReportMetric(float64(refused), "refusals")
	b.ResetTimer()
	for b.Loop() {
		checks.Run(inputs, cfg, checks.Options{})
	}
}
