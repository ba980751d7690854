package policy

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// TestAutogenRewritesAsKyverno holds the rewrite to Kyverno's: object.spec
// and object.metadata read the pod template (the CronJob's under its
// jobTemplate), object.metadata.name and .namespace stay the controller's,
// and a match condition holds for the controllers' kinds only.
func TestAutogenRewritesAsKyverno(t *testing.T) {
	spec := admissionregistrationv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}}}},
		MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "labelled", Expression: "has(object.metadata.labels)"}},
		Validations:     []admissionregistrationv1.Validation{{Expression: "object.metadata.name != 'x' && object.metadata.namespaceFoo == 1 && object.spec.containers.size() > 0"}},
	}
	p := &policy{kind: "ValidatingPolicy", name: "p", spec: spec}
	gen := autogen(p, nil)
	if len(gen) != 2 {
		t.Fatalf("autogen made %d policies, want 2 (pod templates, CronJobs)", len(gen))
	}
	if got, want := gen[0].spec.Validations[0].Expression, "object.metadata.name != 'x' && object.spec.template.metadata.namespaceFoo == 1 && object.spec.template.spec.containers.size() > 0"; got != want {
		t.Errorf("validation = %q, want %q", got, want)
	}
	if got, want := gen[1].spec.Validations[0].Expression, "object.metadata.name != 'x' && object.spec.jobTemplate.spec.template.metadata.namespaceFoo == 1 && object.spec.jobTemplate.spec.template.spec.containers.size() > 0"; got != want {
		t.Errorf("CronJob validation = %q, want %q", got, want)
	}
	if got, want := gen[1].spec.MatchConditions[0].Expression, "!((object.apiVersion == 'batch/v1' && object.kind =='CronJob')) || (has(object.spec.jobTemplate.spec.template.metadata.labels))"; got != want {
		t.Errorf("CronJob match condition = %q, want %q", got, want)
	}
	if rules := gen[0].spec.MatchConstraints.ResourceRules; len(rules) != 2 || rules[0].APIGroups[0] != "apps" || len(rules[0].Resources) != 4 || rules[1].Resources[0] != "jobs" {
		t.Errorf("resource rules = %+v, want apps' four and batch's jobs", rules)
	}
	off := false
	if gen := autogen(p, &autogenConfig{PodControllers: &struct {
		Enabled     *bool    `json:"enabled"`
		Controllers []string `json:"controllers"`
	}{Enabled: &off}}); len(gen) != 0 {
		t.Errorf("enabled: false made %d policies", len(gen))
	}
	spec.MatchConstraints.ResourceRules[0].Resources = []string{"pods", "deployments"}
	if gen := autogen(&policy{spec: spec}, nil); len(gen) != 0 {
		t.Errorf("a policy matching more than pods made %d autogen policies", len(gen))
	}
}

// TestRefusalThroughAVariableIsAtItsField holds a validation that reads
// the object through a variable (cert-manager's Kyverno policies do) to
// the field the variable reads: the template's containers once autogen
// rewrote it, not the kind line.
func TestRefusalThroughAVariableIsAtItsField(t *testing.T) {
	spec := admissionregistrationv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}}}},
		Variables:   []admissionregistrationv1.Variable{{Name: "allContainers", Expression: "object.spec.containers + object.spec.?initContainers.orValue([])"}},
		Validations: []admissionregistrationv1.Validation{{Expression: "variables.allContainers.all(c, has(c.securityContext))"}},
	}
	p := &policy{kind: "ValidatingPolicy", name: "p", spec: spec, bindings: []*binding{{}}}
	gen := autogen(p, nil)
	gen[0].compile()
	if gen[0].reason != "" {
		t.Fatalf("not compiled: %s", gen[0].reason)
	}
	if got := gen[0].expressionPaths[0].String(); got != "spec.template.spec.containers" {
		t.Errorf("the refusal is at %q, want spec.template.spec.containers", got)
	}
}
