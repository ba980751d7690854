package policy_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/policy"
)

// TestFixtures checks the policies of fixtures/rules/policy against the
// markers of its manifests.
func TestFixtures(t *testing.T) {
	checkstest.Run(t, catalog.Default(), policy.Rules())
}

// TestNotEvaluatedAreSaid holds the fixture's policies that need the
// cluster to what the run says of them: the one that reads
// request.userInfo and the Kyverno pattern rule are listed with why, and
// make no finding; so does the one that reads a field the API server
// defaults, on the Deployments that omit it.
func TestNotEvaluatedAreSaid(t *testing.T) {
	res, _ := checkstest.Fixture(t, catalog.Default(), filepath.Join(checkstest.RulesDir(t), "policy"))
	var got []string
	for _, u := range res.Unchecked {
		if strings.HasPrefix(u.At.RuleID, "policy/") {
			got = append(got, u.At.RuleID+": "+u.Reason)
		}
	}
	want := []string{
		"policy/only-ci-deploys: ValidatingAdmissionPolicy only-ci-deploys is not evaluated: an expression reads request.userInfo",
		"policy/rolling-updates: ValidatingAdmissionPolicy rolling-updates is not evaluated on every object: an expression reads a field the Deployment omits (no such key: strategy)",
		"policy/require-requests: Kyverno ClusterPolicy require-requests: validate rules check-requests are not evaluated",
	}
	if len(got) != len(want) {
		t.Fatalf("unchecked = %q, want %d entries", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("unchecked[%d] = %q, want it to start %q", i, got[i], want[i])
		}
	}
	for _, f := range res.Findings {
		if f.RuleID == "policy/only-ci-deploys" || f.RuleID == "policy/require-requests" || f.RuleID == "policy/rolling-updates" {
			t.Errorf("a policy not evaluated made a finding: %+v", f)
		}
	}
}

// TestOverBudgetIsNotEvaluated holds a policy whose expression runs over
// the API server's CEL cost budget to being said once, not evaluated on the
// other objects (a hostile policy would cost the budget on each), and to
// no finding.
func TestOverBudgetIsNotEvaluated(t *testing.T) {
	expr := "true"
	for _, v := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		expr = "[1,2,3,4,5,6,7,8,9,10].all(" + v + ", " + expr + ")"
	}
	text := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: expensive}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE], resources: ["*"]}]
  validations: [{expression: "` + expr + `"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: expensive}
spec: {policyName: expensive, validationActions: [Deny]}
`
	for i := range 20 {
		text += fmt.Sprintf("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d, namespace: a}\n", i)
	}
	res := checks.Run([]checks.Input{{Path: "p.yaml", Data: []byte(text)}}, checks.DefaultConfig(catalog.Default()), checks.Options{})
	for _, f := range res.Findings {
		if f.RuleID == "policy/expensive" {
			t.Errorf("a finding of the policy over budget: %s", f.Message)
		}
	}
	said := 0
	for _, u := range res.Unchecked {
		if u.At.RuleID == "policy/expensive" && strings.Contains(u.Reason, "runs over the API server's CEL cost budget") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the policy over budget is said %d times, want once: %+v", said, res.Unchecked)
	}
}

// TestExceptionsExempt holds the fixture's Kyverno PolicyExceptions to
// Kyverno's reading: the one whose match condition holds exempts its
// Deployment, listed with the exception's line and no finding; the
// expired one exempts nothing.
func TestExceptionsExempt(t *testing.T) {
	res, _ := checkstest.Fixture(t, catalog.Default(), filepath.Join(checkstest.RulesDir(t), "policy"))
	var got []string
	for _, e := range res.Exempted {
		got = append(got, fmt.Sprintf("%s:%d %s %s by %s at %s:%d", filepath.Base(e.Finding.File), e.Finding.Line, e.Finding.RuleID, e.Finding.Object.Name, e.By, filepath.Base(e.Exception.File), e.Exception.Line))
	}
	want := []string{"exceptions.yaml:46 policy/approved-registry legacy by Kyverno PolicyException shop/legacy-registry at exceptions.yaml:5"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("exempted =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range res.Findings {
		if f.Object.Name == "legacy" && strings.HasPrefix(f.RuleID, "policy/") {
			t.Errorf("an exempted refusal is a finding: %s", f.Message)
		}
	}
}
