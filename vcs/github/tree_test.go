package github

import (
	"slices"
	"testing"
)

// TestTreeEncodingRoundTrips: what encodeTree writes, decodeTree reads
// back whole, truncated or not, empty or not; and it reads nothing else.
func TestTreeEncodingRoundTrips(t *testing.T) {
	entries := []treeEntry{
		{path: "apps/web.yaml", sha: "0123456789abcdef0123456789abcdef01234567", size: 812},
		{path: "caf\u00e9/with space.yml", sha: "fedcba9876543210fedcba9876543210fedcba98", size: 0},
		{path: "big.yaml", sha: "00000000000000000000000000000000000000ff", size: 1 << 40},
	}
	for _, tc := range []struct {
		entries   []treeEntry
		truncated bool
	}{{entries, false}, {entries, true}, {nil, false}, {entries[:1], true}} {
		got, truncated, ok := decodeTree(encodeTree(tc.entries, tc.truncated))
		if !ok || truncated != tc.truncated {
			t.Errorf("%d entries, truncated %v: read back ok %v, truncated %v", len(tc.entries), tc.truncated, ok, truncated)
		}
		if !slices.Equal(tc.entries, got) {
			t.Errorf("%d entries, truncated %v: wrote %+v, read %+v", len(tc.entries), tc.truncated, tc.entries, got)
		}
	}
	for _, bad := range []string{"", "x", "2", "0a\x00", "0a\x00b\x00", "0a\x00b\x00x\x00", "0a\x00b\x00-1\x00", "0a\x00b\x0012"} {
		if _, _, ok := decodeTree([]byte(bad)); ok {
			t.Errorf("decodeTree(%q) read it", bad)
		}
	}
}

// TestIsCommitSHA: only a full lowercase SHA-1 or SHA-256 names a tree for
// good.
func TestIsCommitSHA(t *testing.T) {
	for ref, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef01234567":                         true,
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": true,
		"0123456789ABCDEF0123456789abcdef01234567":                         false,
		"0123456789abcdef": false,
		"main":             false,
		"0123456789abcdef0123456789abcdef0123456g": false,
		"": false,
	} {
		if got := isCommitSHA(ref); got != want {
			t.Errorf("isCommitSHA(%q) = %v, want %v", ref, got, want)
		}
	}
}
