package diff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParsePatch feeds arbitrary unified diffs to ParsePatch and the line
// mapping built on it. Invariants: it never panics; every hunk starts at
// line 1 or later and shows exactly as many new-side lines as its context
// and added lines; lines are numbered consecutively on both sides from the
// hunk header; every shown line lies within its hunk; NewLine, IsAdded,
// InOneHunk and AddedIn agree with the hunks.
//
// Seeds: the patches of this package's tests, and the "diff" fields of the
// GitLab diff listings in ../shared/payloads when present (read at fuzz
// time, not copied: they are third-party).
func FuzzParsePatch(f *testing.F) {
	for _, p := range []string{
		samplePatch,
		"@@ -0,0 +1,2 @@\n+a\n+b\n",
		"@@ -1 +x @@\n+a",
		"",
		"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n",
		"@@ -3,0 +4 @@\n+only\n",
		"@@ -1,3 +0,0 @@\n-a\n-b\n-c\n",
		"@@ -1 +9223372036854775807 @@\n+a\n+b\n",
	} {
		f.Add(p, 1, 3)
	}
	for _, p := range sharedGitLabDiffs(f) {
		f.Add(p, 1, 2)
	}
	f.Fuzz(func(t *testing.T, patch string, start, end int) {
		d, err := ParsePatch(patch)
		if err != nil {
			if d != nil {
				t.Fatalf("error %v with a non-nil diff", err)
			}
			return
		}
		shown := newSideLines(patch)
		if len(shown) != len(d.Hunks) {
			t.Fatalf("%d hunks, %d hunk headers", len(d.Hunks), len(shown))
		}
		for i, h := range d.Hunks {
			if h.Start < 1 {
				t.Fatalf("hunk %d starts at line %d", i, h.Start)
			}
			if got := h.End - h.Start + 1; got != shown[i] {
				t.Fatalf("hunk %d spans %d..%d (%d lines) but shows %d new-side lines", i, h.Start, h.End, got, shown[i])
			}
			oldNext, newNext := max(h.OldStart, 1), h.Start
			for _, ln := range h.Lines {
				switch ln.Type {
				case Deleted:
					if ln.New != 0 || ln.Old != oldNext {
						t.Fatalf("hunk %d: deleted line numbered %+v, want old %d", i, ln, oldNext)
					}
					oldNext++
					continue
				case Context:
					if ln.Old != oldNext || ln.New != newNext {
						t.Fatalf("hunk %d: context line numbered %+v, want %d/%d", i, ln, oldNext, newNext)
					}
					oldNext++
				case Added:
					if ln.Old != 0 || ln.New != newNext {
						t.Fatalf("hunk %d: added line numbered %+v, want new %d", i, ln, newNext)
					}
				}
				newNext++
				l := ln.New
				if l < h.Start || l > h.End {
					t.Fatalf("hunk %d (%d..%d) shows line %d outside it", i, h.Start, h.End, l)
				}
				if got, _, ok := d.NewLine(l); !ok || got.Type != ln.Type {
					t.Fatalf("NewLine(%d) = %+v, %v; the hunk says %+v", l, got, ok, ln)
				}
				if ln.Type != Added {
					continue
				}
				if !d.IsAdded(l) || !d.AddedIn(l, l) {
					t.Fatalf("line %d added by hunk %d but IsAdded/AddedIn say no", l, i)
				}
				if !d.InOneHunk(l, l) {
					t.Fatalf("added line %d is in no hunk", l)
				}
			}
		}
		// Bound the probed range so AddedIn stays cheap.
		if end-start > 1000 {
			end = start + 1000
		}
		if d.InOneHunk(start, end) {
			if start > end || start < 1 {
				t.Fatalf("InOneHunk(%d, %d) on an empty or non-positive range", start, end)
			}
			in := false
			for _, h := range d.Hunks {
				in = in || (start >= h.Start && end <= h.End)
			}
			if !in {
				t.Fatalf("InOneHunk(%d, %d) but no hunk holds it", start, end)
			}
		}
		if start < 1 && d.IsAdded(start) {
			t.Fatalf("line %d reported added", start)
		}
		added := false
		for l := start; l <= end && start <= end; l++ {
			added = added || d.IsAdded(l)
		}
		if added != d.AddedIn(start, end) {
			t.Fatalf("AddedIn(%d, %d) = %v, lines say %v", start, end, !added, added)
		}
	})
}

// newSideLines counts, for each hunk of patch, the lines present at head
// (context and added lines), independently of ParsePatch.
func newSideLines(patch string) []int {
	var out []int
	lines := strings.Split(patch, "\n")
	for i, l := range lines {
		if l == "" && i == len(lines)-1 {
			break
		}
		switch {
		case strings.HasPrefix(l, "@@"):
			out = append(out, 0)
		case len(out) == 0, strings.HasPrefix(l, "-"), strings.HasPrefix(l, `\`):
		default:
			out[len(out)-1]++
		}
	}
	return out
}

// sharedGitLabDiffs returns the "diff" fields of the GitLab diff listings
// under ../shared/payloads/gitlab, or nothing when that folder is absent.
func sharedGitLabDiffs(f *testing.F) []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "payloads", "gitlab", "*.json"))
	if len(files) == 0 {
		f.Log("../shared/payloads/gitlab absent: fuzzing from the built-in seeds only")
	}
	var out []string
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var v any
		if json.Unmarshal(data, &v) != nil {
			continue
		}
		collectDiffs(v, &out)
	}
	return out
}

func collectDiffs(v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "diff" {
				*out = append(*out, s)
			} else {
				collectDiffs(x, out)
			}
		}
	case []any:
		for _, x := range v {
			collectDiffs(x, out)
		}
	}
}
