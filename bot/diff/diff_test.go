package diff

import (
	"maps"
	"slices"
	"testing"
)

const samplePatch = `@@ -1,4 +1,5 @@
 a
-b
+B
+C
 d
 e
@@ -10,2 +11,3 @@ spec:
 x
+y
 z
\ No newline at end of file`

func TestParsePatch(t *testing.T) {
	d, err := ParsePatch(samplePatch)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Hunks) != 2 {
		t.Fatalf("hunks = %d, want 2", len(d.Hunks))
	}
	for _, tc := range []struct {
		line  int
		added bool
	}{{1, false}, {2, true}, {3, true}, {4, false}, {5, false}, {11, false}, {12, true}, {13, false}, {6, false}} {
		if got := d.IsAdded(tc.line); got != tc.added {
			t.Errorf("IsAdded(%d) = %v, want %v", tc.line, got, tc.added)
		}
	}
	for _, tc := range []struct {
		start, end int
		want       bool
	}{
		{1, 5, true},   // whole first hunk
		{2, 3, true},   // added lines
		{5, 6, false},  // runs past the hunk
		{5, 11, false}, // spans two hunks
		{11, 13, true},
		{3, 2, false}, // empty range
	} {
		if got := d.InOneHunk(tc.start, tc.end); got != tc.want {
			t.Errorf("InOneHunk(%d,%d) = %v, want %v", tc.start, tc.end, got, tc.want)
		}
	}
}

func TestParsePatchNewFileAndErrors(t *testing.T) {
	d, err := ParsePatch("@@ -0,0 +1,2 @@\n+a\n+b\n")
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsAdded(1) || !d.IsAdded(2) || d.IsAdded(3) {
		t.Errorf("new file: added lines wrong: %+v", d.Hunks)
	}
	if _, err := ParsePatch("@@ -1 +x @@\n+a"); err == nil {
		t.Error("bad header: want an error")
	}
	d, err = ParsePatch("")
	if err != nil || len(d.Hunks) != 0 || d.IsAdded(1) {
		t.Errorf("empty patch: %+v, %v", d, err)
	}
}

// TestParsePatchNumbersBothSides checks the old and new number of every
// line, the way GitLab's diff parser (Gitlab::Diff::Parser) numbers them:
// the line codes GitLab anchors discussions on are built from these.
func TestParsePatchNumbersBothSides(t *testing.T) {
	patch := "@@ -1,4 +1,5 @@ apiVersion: v1\n a\n-b\n+B\n+C\n c\n d\n@@ -10,2 +11,3 @@\n x\n+y\n z\n\\ No newline at end of file\n"
	d, err := ParsePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Line{
		{
			{Type: Context, Old: 1, New: 1, Content: "a"},
			{Type: Deleted, Old: 2, Content: "b"},
			{Type: Added, New: 2, Content: "B"},
			{Type: Added, New: 3, Content: "C"},
			{Type: Context, Old: 3, New: 4, Content: "c"},
			{Type: Context, Old: 4, New: 5, Content: "d"},
		},
		{
			{Type: Context, Old: 10, New: 11, Content: "x"},
			{Type: Added, New: 12, Content: "y"},
			{Type: Context, Old: 11, New: 13, Content: "z"},
		},
	}
	if len(d.Hunks) != len(want) {
		t.Fatalf("hunks = %d, want %d", len(d.Hunks), len(want))
	}
	for i, h := range d.Hunks {
		if !slices.Equal(h.Lines, want[i]) {
			t.Errorf("hunk %d lines:\n%+v\nwant\n%+v", i, h.Lines, want[i])
		}
	}
	if h := d.Hunks[1]; h.OldStart != 10 || h.NewStart != 11 || h.Start != 11 || h.End != 13 {
		t.Errorf("second hunk header = %+v", h)
	}
	if l, hunk, ok := d.NewLine(12); !ok || hunk != 1 || l.Type != Added {
		t.Errorf("NewLine(12) = %+v, %d, %v; want the added line of hunk 1", l, hunk, ok)
	}
	if _, _, ok := d.NewLine(6); ok {
		t.Error("NewLine(6): the diff does not show line 6")
	}
	for _, tc := range []struct {
		start, end int
		ok         bool
	}{
		{2, 2, true}, {2, 5, true}, {3, 4, true},
		{1, 2, true},    // starts on a context line, adds on the next
		{1, 1, false},   // context line: nothing was added there
		{4, 5, false},   // context only
		{2, 6, false},   // runs past the hunk
		{5, 12, false},  // spans two hunks
		{12, 13, true},  // second hunk
		{20, 20, false}, // outside the diff
		{3, 2, false},
	} {
		if got := d.Commentable(tc.start, tc.end); got != tc.ok {
			t.Errorf("Commentable(%d, %d) = %v, want %v", tc.start, tc.end, got, tc.ok)
		}
	}
}

func TestParseHunkHeaderRejectsGarbage(t *testing.T) {
	for _, h := range []string{"@@", "@@ -a +1 @@", "@@ 1 2 @@", "@@ -1 +x,2 @@", "@@ +1 -1 @@"} {
		if _, err := ParsePatch(h + "\n+x\n"); err == nil {
			t.Errorf("ParsePatch(%q) = nil error, want one", h)
		}
	}
}

func TestAddedFilePatch(t *testing.T) {
	p := AddedFilePatch([]byte("a: 1\nb: 2\n"))
	if p != "@@ -0,0 +1,2 @@\n+a: 1\n+b: 2\n" {
		t.Fatalf("AddedFilePatch = %q", p)
	}
	d, err := ParsePatch(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Hunks) != 1 || d.Hunks[0].OldStart != 0 || !d.IsAdded(1) || !d.IsAdded(2) || d.IsAdded(3) {
		t.Errorf("new file diff = %+v, want lines 1 and 2 added on an empty old side", d.Hunks)
	}
	if AddedFilePatch(nil) != "" {
		t.Error("an empty file has an empty diff")
	}
}

func TestSplitFiles(t *testing.T) {
	raw := "diff --git a/a.yaml b/a.yaml\nindex 1..2 100644\n--- a/a.yaml\n+++ b/a.yaml\n@@ -1 +1 @@\n-x\n+y\n" +
		"diff --git a/new.yaml b/new.yaml\nnew file mode 100644\n--- /dev/null\n+++ b/new.yaml\n@@ -0,0 +1 @@\n+n\n" +
		"diff --git a/gone.yaml b/gone.yaml\ndeleted file mode 100644\n--- a/gone.yaml\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n" +
		"diff --git a/bin b/bin\nBinary files a/bin and b/bin differ\n" +
		"diff --git \"a/sp ace.yaml\" \"b/sp ace.yaml\"\n--- \"a/sp ace.yaml\"\n+++ \"b/sp ace.yaml\"\n@@ -1 +1 @@\n--- x\n+++ y\n"
	got := SplitFiles(raw)
	want := map[string]string{
		"a.yaml":      "@@ -1 +1 @@\n-x\n+y\n",
		"new.yaml":    "@@ -0,0 +1 @@\n+n\n",
		"gone.yaml":   "@@ -1 +0,0 @@\n-g\n",
		"sp ace.yaml": "@@ -1 +1 @@\n--- x\n+++ y\n",
	}
	if !maps.Equal(got, want) {
		t.Errorf("SplitFiles:\n%q\nwant\n%q", got, want)
	}
}
