package bot

import "testing"

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
