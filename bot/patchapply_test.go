package bot

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/udiff"
)

func TestApplyPatch(t *testing.T) {
	cases := []struct {
		name, old, new, patch string
	}{
		{"modify", "a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"add file", "", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"remove file", "x\ny\n", "", "@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{"insert after line", "a\nb\n", "a\nnew\nb\n", "@@ -1,0 +2 @@\n+new\n"},
		{"newline added at end", "a\nb", "a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"newline removed at end", "a\nb\n", "a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
		{"no newline on both sides", "a\nb", "A\nb", "@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\nX\n3\n4\n5\n6\n7\nY\n9\n", "@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n@@ -7,3 +7,3 @@\n 7\n-8\n+Y\n 9\n"},
		{"crlf", "a\r\nb\r\n", "a\r\nc\r\n", "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"},
	}
	for _, c := range cases {
		got, err := ApplyPatch([]byte(c.old), c.patch, false)
		if err != nil || string(got) != c.new {
			t.Errorf("%s: forward = %q, %v; want %q", c.name, got, err, c.new)
		}
		got, err = ApplyPatch([]byte(c.new), c.patch, true)
		if err != nil || string(got) != c.old {
			t.Errorf("%s: reverse = %q, %v; want %q", c.name, got, err, c.old)
		}
	}
	// A patch of other contents, or cut short, does not apply.
	for _, bad := range []struct{ src, patch string }{
		{"a\nz\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"a\n", "@@ -5,1 +5,1 @@\n-e\n+E\n"},
		{"a\n", "@@ -1 +1 @@\n?a\n"},
		{"a\n", "@@ nonsense\n"},
	} {
		if got, err := ApplyPatch([]byte(bad.src), bad.patch, false); err == nil {
			t.Errorf("patch %q applied to %q: %q", bad.patch, bad.src, got)
		}
	}
}

// TestApplyPatchRoundTrip applies diffs of random edits both ways.
func TestApplyPatchRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		var old []string
		for i := range rng.IntN(40) {
			old = append(old, fmt.Sprintf("line %d", i%7))
		}
		cur := append([]string(nil), old...)
		for range rng.IntN(6) {
			switch i := rng.IntN(len(cur) + 1); rng.IntN(3) {
			case 0:
				cur = append(cur[:i], append([]string{fmt.Sprintf("new %d", rng.IntN(5))}, cur[i:]...)...)
			case 1:
				if i < len(cur) {
					cur = append(cur[:i], cur[i+1:]...)
				}
			default:
				if i < len(cur) {
					cur[i] = "changed"
				}
			}
		}
		a, b := joinLines(old), joinLines(cur)
		var d bytes.Buffer
		udiff.Write(&d, "f.yaml", a, b)
		patch := d.String()
		if got, err := ApplyPatch(a, patch, false); err != nil || !bytes.Equal(got, b) {
			t.Fatalf("case %d forward: %q, %v\nold %q\nnew %q\npatch:\n%s", n, got, err, a, b, patch)
		}
		if got, err := ApplyPatch(b, patch, true); err != nil || !bytes.Equal(got, a) {
			t.Fatalf("case %d reverse: %q, %v\npatch:\n%s", n, got, err, patch)
		}
	}
}

func joinLines(ls []string) []byte {
	if len(ls) == 0 {
		return nil
	}
	return []byte(strings.Join(ls, "\n") + "\n")
}

func TestGitBlobSHA(t *testing.T) {
	// git hash-object of "hello\n".
	if got := GitBlobSHA([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("GitBlobSHA = %s", got)
	}
}

// TestDeriveHeadFromBase checks that the head's versions of changed files
// go to the cache under their blob SHA when the patch applies to the
// base's version (and the host's head SHA, when it gives one, agrees), and
// that nothing goes there otherwise.
func TestDeriveHeadFromBase(t *testing.T) {
	cache := NewLRUCache(1 << 20)
	rv := &Reviewer{Cache: cache}
	base := []File{{Path: "a.yaml", Data: []byte("a\nb\n")}, {Path: "old.yaml", Data: []byte("x\n")}, {Path: "c.yaml", Data: []byte("c\n")}}
	patch := "@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
	rv.derive([]ChangedFile{
		{Path: "a.yaml", Status: "modified", Patch: patch, SHA: GitBlobSHA([]byte("a\nB\n"))},
		{Path: "new.yaml", PreviousPath: "old.yaml", Status: "renamed", Patch: "@@ -1 +1 @@\n-x\n+y\n"},
		{Path: "add.yaml", Status: "added", Patch: "@@ -0,0 +1 @@\n+z\n"},
		{Path: "c.yaml", Status: "modified", Patch: "@@ -1 +1 @@\n-not c\n+d\n"},         // does not apply
		{Path: "c.yaml", Status: "modified", Patch: "@@ -1 +1 @@\n-c\n+e\n", SHA: "f00"}, // not the head's blob
		{Path: "gone.yaml", Status: "removed", Patch: "@@ -1 +0,0 @@\n-g\n"},
	}, base)
	for content, want := range map[string]bool{"a\nB\n": true, "y\n": true, "z\n": true, "d\n": false, "e\n": false, "": false} {
		if _, ok := cache.Get(GitBlobSHA([]byte(content))); ok != want {
			t.Errorf("%q cached %v, want %v", content, ok, want)
		}
	}
}
