package kyverno

import (
	"os"
	"testing"

	"github.com/prodready/prodready/checks"
)

// None of the peers whose fixtures are in ../shared/peer-fixtures
// (kube-score, kube-linter, polaris, kubeconform, kubescape) checks
// admission webhooks, Kyverno policies or Kyverno Helm values, so no rule of
// this family has a peer equivalent to compare verdicts with:
//
//	peer check                      our rule                         verdict
//	(none: no webhook/Kyverno)      webhook-*, kyverno-*,            —
//	                                helm-values-unknown-key
//
// What the peer fixtures can still show is that this family stays silent
// on them: they hold no webhook configuration, Kyverno policy or values.
func TestKyvPeersSilent(t *testing.T) {
	const peers = "../../../../shared/peer-fixtures"
	if _, err := os.Stat(peers); err != nil {
		t.Skip("../shared/peer-fixtures not present: " + err.Error())
	}
	cfg := checks.DefaultConfig(sectionCatalog)
	inputs, err := checks.Load([]string{peers}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Fatal("no peer fixtures loaded")
	}
	for _, f := range checks.Run(inputs, cfg, checks.Options{}).Findings {
		if familyRules[f.RuleID] {
			t.Errorf("%s:%d %s fired on a peer fixture: %s", f.File, f.Line, f.RuleID, f.Message)
		}
	}
}
