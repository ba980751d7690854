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

// TestFingerprintSetOfKeysHoldsThem holds a set made of keys at once
// (sorted, with repeats) to the set of the same fingerprints added one by
// one, and adding to it fingerprints it has or has not.
func TestFingerprintSetOfKeysHoldsThem(t *testing.T) {
	var fps []string
	for _, name := range []string{"web", "api", "db", "web", "cache", "api"} {
		fps = append(fps, checks.Finding{RuleID: "r", File: name + ".yaml", Object: checks.ObjectRef{Kind: "Deployment", Name: name}}.Fingerprint())
	}
	absent := checks.Finding{RuleID: "r", File: "x.yaml"}.Fingerprint()
	keys := make([]uint64, len(fps))
	for i, fp := range fps {
		k, ok := checks.KeyOfFingerprint(fp)
		if !ok {
			t.Fatalf("no key for %q", fp)
		}
		keys[i] = k
	}
	s := fingerprintSetOfKeys(keys)
	want := NewFingerprintSet(fps...)
	if s.Len() != want.Len() || s.Len() != 4 {
		t.Fatalf("Len = %d, want %d (4)", s.Len(), want.Len())
	}
	for _, fp := range append(fps, absent, "f1") {
		if s.Has(fp) != want.Has(fp) {
			t.Errorf("Has(%q) = %v, want %v", fp, s.Has(fp), want.Has(fp))
		}
	}
	s.Add(fps[0])
	s.Add(absent)
	s.Add("f1")
	if s.Len() != 6 || !s.Has(absent) || !s.Has("f1") || !s.Has(fps[2]) {
		t.Errorf("after adding: Len = %d, Has(absent) = %v, Has(f1) = %v", s.Len(), s.Has(absent), s.Has("f1"))
	}
}
