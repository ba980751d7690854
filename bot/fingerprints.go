package bot

import (
	"slices"

	"github.com/prodready/prodready/checks"
)

// A FingerprintSet is a set of findings' fingerprints
// (checks.Finding.Fingerprint), each held as its key
// (checks.KeyOfFingerprint): a review holds every finding's at head, about
// 150,000 at 50,000 objects, which as a map of their text took a string
// and a map entry each, and was copied again to plan the comments. The
// zero value is an empty set.
type FingerprintSet struct {
	// sorted holds the keys of a set made at once (fingerprintSetOfKeys),
	// ascending, each once: the head's 150,000 at 50,000 objects took 5
	// MB as a map's, 1.2 MB so (and the review had made the list).
	sorted []uint64
	// keys holds the keys added since (Add), none of them in sorted.
	keys map[uint64]struct{}
	// text holds the fingerprints that make no key (none that
	// Fingerprint makes).
	text map[string]struct{}
}

// NewFingerprintSet returns a set of fps.
func NewFingerprintSet(fps ...string) FingerprintSet {
	var s FingerprintSet
	for _, fp := range fps {
		s.Add(fp)
	}
	return s
}

// fingerprintSetOfKeys returns the set of the fingerprints whose keys are
// keys, which it sorts and takes as its own.
func fingerprintSetOfKeys(keys []uint64) FingerprintSet {
	slices.Sort(keys)
	return FingerprintSet{sorted: slices.Clip(slices.Compact(keys))}
}

// Add puts fp in s.
func (s *FingerprintSet) Add(fp string) {
	if k, ok := checks.KeyOfFingerprint(fp); ok {
		if s.hasKey(k) {
			return
		}
		if s.keys == nil {
			s.keys = map[uint64]struct{}{}
		}
		s.keys[k] = struct{}{}
		return
	}
	if s.text == nil {
		s.text = map[string]struct{}{}
	}
	s.text[fp] = struct{}{}
}

// hasKey reports whether the fingerprint whose key is k is in s.
func (s FingerprintSet) hasKey(k uint64) bool {
	if _, in := slices.BinarySearch(s.sorted, k); in {
		return true
	}
	_, in := s.keys[k]
	return in
}

// Has reports whether fp is in s.
func (s FingerprintSet) Has(fp string) bool {
	if k, ok := checks.KeyOfFingerprint(fp); ok {
		return s.hasKey(k)
	}
	_, in := s.text[fp]
	return in
}

// Len is how many fingerprints s holds.
func (s FingerprintSet) Len() int { return len(s.sorted) + len(s.keys) + len(s.text) }
