package treecache

import (
	"slices"
	"testing"

	"github.com/prodready/prodready/bot"
)

// TestEncodingRoundTrips: what encode writes, decode reads back whole,
// empty or not; and it reads nothing else (a list an older version kept
// for a truncated listing either).
func TestEncodingRoundTrips(t *testing.T) {
	entries := []Entry{
		{Path: "apps/web.yaml", SHA: "0123456789abcdef0123456789abcdef01234567", Size: 812},
		{Path: "caf\u00e9/with space.yml", SHA: "fedcba9876543210fedcba9876543210fedcba98", Size: 0},
		{Path: "big.yaml", SHA: "00000000000000000000000000000000000000ff", Size: 1 << 40},
		{Path: "prod.yaml", SHA: "00000000000000000000000000000000000000aa", Link: true},
	}
	for _, tc := range [][]Entry{entries, nil, entries[:1]} {
		got, ok := decode(encode(tc))
		if !ok || !slices.Equal(tc, got) {
			t.Errorf("%d entries: wrote %+v, read %+v (ok %v)", len(tc), tc, got, ok)
		}
	}
	for _, bad := range []string{"", "x", "1", "1a\x00b\x001\x00", "2", "0a\x00", "0a\x00b\x00", "0a\x00b\x00x\x00", "0a\x00b\x00-1\x00", "0a\x00b\x0012", "0a\x00b\x00l"} {
		if _, ok := decode([]byte(bad)); ok {
			t.Errorf("decode(%q) read it", bad)
		}
	}
}

// TestKeyOnlyForTheBaseCommit: only the base's tree, named by a full
// lowercase SHA-1 or SHA-256 and not the head's too, is kept.
func TestKeyOnlyForTheBaseCommit(t *testing.T) {
	const base, head = "0123456789abcdef0123456789abcdef01234567", "fedcba9876543210fedcba9876543210fedcba98"
	pr := bot.PullRequest{Host: "gitlab", Repo: "group/app", BaseSHA: base, HeadSHA: head}
	if k := Key(pr, base); k != "tree:gitlab:group/app@"+base {
		t.Errorf("Key at base = %q", k)
	}
	if k := Key(pr, head); k != "" {
		t.Errorf("Key at head = %q, want none", k)
	}
	for ref, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": true,
		"0123456789ABCDEF0123456789abcdef01234567":                         false,
		"0123456789abcdef": false,
		"main":             false,
		"0123456789abcdef0123456789abcdef0123456g": false,
		"": false,
	} {
		pr := bot.PullRequest{BaseSHA: ref, HeadSHA: head}
		if got := Key(pr, ref) != ""; got != want {
			t.Errorf("Key at base %q kept: %v, want %v", ref, got, want)
		}
	}
}

// memCache is a BlobCache in a map.
type memCache map[string][]byte

func (m memCache) Get(k string) ([]byte, bool) { d, ok := m[k]; return d, ok }
func (m memCache) Put(k string, d []byte)      { m[k] = d }

// TestGetWhatPutKept: a tree put under a key is got back; nothing is kept
// or got without a cache or a key, or under a key that holds a blob.
func TestGetWhatPutKept(t *testing.T) {
	c := memCache{}
	entries := []Entry{{Path: "a.yaml", SHA: "0123456789abcdef0123456789abcdef01234567", Size: 3}}
	Put(c, "k", entries)
	if got, ok := Get(c, "k"); !ok || !slices.Equal(got, entries) {
		t.Errorf("Get = %+v, %v", got, ok)
	}
	Put(c, "", entries)
	Put(nil, "k", entries)
	if len(c) != 1 {
		t.Errorf("cache holds %d keys, want 1", len(c))
	}
	if _, ok := Get(nil, "k"); ok {
		t.Error("Get without a cache found a tree")
	}
	c["blob"] = []byte("apiVersion: v1\n")
	if _, ok := Get(c, "blob"); ok {
		t.Error("Get read a blob as a tree")
	}
}
