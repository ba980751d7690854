package local

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/prodready/prodready/bot"
)

func TestParseGitDiff(t *testing.T) {
	out := `diff --git a/a.yaml b/a.yaml
index 1..2 100644
--- a/a.yaml
+++ b/a.yaml
@@ -1,2 +1,2 @@
 x
-y
+z
diff --git a/new.yaml b/new.yaml
new file mode 100644
index 0000000..3
--- /dev/null
+++ b/new.yaml
@@ -0,0 +1 @@
+n
diff --git a/gone.yaml b/gone.yaml
deleted file mode 100644
--- a/gone.yaml
+++ /dev/null
@@ -1 +0,0 @@
-g
diff --git a/old.yaml b/moved.yaml
similarity index 90%
rename from old.yaml
rename to moved.yaml
`
	want := []bot.ChangedFile{
		{Path: "a.yaml", Status: "modified", Patch: "@@ -1,2 +1,2 @@\n x\n-y\n+z"},
		{Path: "new.yaml", Status: "added", Patch: "@@ -0,0 +1 @@\n+n"},
		{Path: "gone.yaml", Status: "removed", Patch: "@@ -1 +0,0 @@\n-g"},
		{Path: "moved.yaml", PreviousPath: "old.yaml", Status: "renamed"},
	}
	if diff := cmp.Diff(want, ParseGitDiff(out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
