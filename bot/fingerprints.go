package bot

import "github.com/prodready/prodready/checks"

// A FingerprintSet is a set of findings' fingerprints
// (checks.Finding.Fingerprint), each held as its key
// (checks.KeyOfFingerprint): a review holds every finding's at head, about
// 150,000 at 50,000 objects, which as a map of their text took a string
// and a map entry each, and was copied again to plan the comments. The
// zero value is an empty set.
type FingerprintSet struct {
	keys map[uint64]struct{}
	// text holds the fingerprints that make no key (none that
	// Fingerprint makes).
	text map[string]struct{}
}

// NewFingerprintSet returns a set of fps.
func NewFingerprintSet(fps ...string) FingerprintSet {
	s := makeFingerprintSet(len(fps))
	for _, fp := range fps {
		s.Add(fp)
	}
	return s
}

// makeFingerprintSet returns an empty set with room for n fingerprints.
func makeFingerprintSet(n int) FingerprintSet {
	return FingerprintSet{keys: make(map[uint64]struct{}, n)}
}

// Add puts fp in s.
func (s *FingerprintSet) Add(fp string) {
	if k, ok := checks.KeyOfFingerprint(fp); ok {
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

// addKey puts the fingerprint whose key is k in s.
func (s *FingerprintSet) addKey(k uint64) {
	if s.keys == nil {
		s.keys = map[uint64]struct{}{}
	}
	s.keys[k] = struct{}{}
}

// Has reports whether fp is in s.
func (s FingerprintSet) Has(fp string) bool {
	if k, ok := checks.KeyOfFingerprint(fp); ok {
		_, in := s.keys[k]
		return in
	}
	_, in := s.text[fp]
	return in
}

// Len is how many fingerprints s holds.
func (s FingerprintSet) Len() int { return len(s.keys) + len(s.text) }
