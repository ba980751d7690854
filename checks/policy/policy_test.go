package policy_test

import (
	"path/filepath"
	"strings"
	"testing"

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
