package bot

import (
	"testing"

	"github.com/prodready/prodready/checks"
)

// TestFingerprintSetHoldsWhatWasAdded holds a FingerprintSet to a map of
// the fingerprints' text: a finding's fingerprint (held as its key), the
// same digits in capitals and text that is no fingerprint (held as text)
// are each in it only once added, and are told apart.
func TestFingerprintSetHoldsWhatWasAdded(t *testing.T) {
	fp := checks.Finding{RuleID: "r", File: "a.yaml", Object: checks.ObjectRef{Kind: "Deployment", Name: "web"}}.Fingerprint()
	other := checks.Finding{RuleID: "r", File: "b.yaml", Object: checks.ObjectRef{Kind: "Deployment", Name: "web"}}.Fingerprint()
	upper := "ABCDEF0123456789"
	all := []string{fp, other, upper, "abcdef0123456789", "f1", ""}
	for _, added := range [][]string{nil, {fp}, {fp, upper}, {"f1", ""}, all} {
		s := NewFingerprintSet(added...)
		want := map[string]bool{}
		for _, a := range added {
			want[a] = true
		}
		for _, q := range all {
			if got := s.Has(q); got != want[q] {
				t.Errorf("set of %q: Has(%q) = %v, want %v", added, q, got, want[q])
			}
		}
		if s.Len() != len(want) {
			t.Errorf("set of %q: Len = %d, want %d", added, s.Len(), len(want))
		}
	}
	var zero FingerprintSet
	if zero.Has(fp) || zero.Len() != 0 {
		t.Error("the zero set is not empty")
	}
}
