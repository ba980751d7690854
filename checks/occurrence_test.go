package checks

import "testing"

// TestNumberOccurrences checks that findings sharing a fingerprint are
// numbered in file order, each file from 0, so every fingerprint of a run
// is unique.
func TestNumberOccurrences(t *testing.T) {
	same := func(file string) Finding {
		return Finding{RuleID: "replicas-too-few", File: file, Object: ObjectRef{Kind: "Deployment", Name: "web"}, Path: "spec.replicas", Message: "m"}
	}
	other := same("a.yaml")
	other.Object.Name = "api"
	fs := []Finding{same("a.yaml"), same("a.yaml"), other, same("a.yaml"), same("b.yaml"), same("b.yaml")}
	numberOccurrences(fs)
	want := []int{0, 1, 0, 2, 0, 1}
	seen := map[string]bool{}
	for i, f := range fs {
		if f.Occurrence != want[i] {
			t.Errorf("finding %d (%s %s): occurrence %d, want %d", i, f.File, f.Object.Name, f.Occurrence, want[i])
		}
		if seen[f.Fingerprint()] {
			t.Errorf("finding %d: fingerprint %s repeats", i, f.Fingerprint())
		}
		seen[f.Fingerprint()] = true
	}
}
