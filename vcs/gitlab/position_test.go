package gitlab

import (
	"crypto/sha1"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
)

func parseFileDiff(t *testing.T, oldPath, newPath, patch string) *fileDiff {
	t.Helper()
	d, err := bot.ParsePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	return &fileDiff{OldPath: oldPath, NewPath: newPath, Diff: d}
}

// TestAnchorsNumberLinesLikeGitLab checks the old-side counter of every
// line the way Gitlab::Diff::Parser keeps it: an added line carries the
// next old line.
func TestAnchorsNumberLinesLikeGitLab(t *testing.T) {
	d := parseFileDiff(t, "k.yaml", "k.yaml", "@@ -1,4 +1,5 @@ apiVersion: v1\n a\n-b\n+B\n+C\n c\n d\n@@ -10,2 +11,3 @@\n x\n+y\n z\n\\ No newline at end of file\n")
	want := map[int]anchor{
		1:  {NewLine: 1, OldPos: 1},
		2:  {NewLine: 2, OldPos: 3, Added: true}, // after the removed old line 2
		3:  {NewLine: 3, OldPos: 3, Added: true},
		4:  {NewLine: 4, OldPos: 3},
		5:  {NewLine: 5, OldPos: 4},
		11: {NewLine: 11, OldPos: 10},
		12: {NewLine: 12, OldPos: 11, Added: true},
		13: {NewLine: 13, OldPos: 11},
	}
	for n := 0; n <= 14; n++ {
		got, ok := d.anchorAt(n)
		w, shown := want[n]
		if ok != shown || got != w {
			t.Errorf("anchorAt(%d) = %+v, %v; want %+v, %v", n, got, ok, w, shown)
		}
	}
	ins := parseFileDiff(t, "k.yaml", "k.yaml", "@@ -3,0 +4 @@\n+only\n")
	if got, _ := ins.anchorAt(4); got != (anchor{NewLine: 4, OldPos: 3, Added: true}) {
		t.Errorf("line inserted after old line 3: %+v, want old position 3", got)
	}
}

func TestLineCodeIsSHA1OfPathOldNew(t *testing.T) {
	d := parseFileDiff(t, "", "deploy/new.yaml", bot.AddedFilePatch([]byte("a: 1\nb: 2\n")))
	a, ok := d.anchorAt(2)
	sum := fmt.Sprintf("%x", sha1.Sum([]byte("deploy/new.yaml")))
	if got, want := lineCode("deploy/new.yaml", a), sum+"_0_2"; !ok || got != want {
		t.Errorf("line code of a new file's line 2 = %s, want %s", got, want)
	}
}

func TestGitLabBody(t *testing.T) {
	f := checks.Finding{RuleID: "replicas", Severity: checks.Warning, File: "a.yaml", Line: 3, Message: "too few"}
	sug := &bot.Suggestion{StartLine: 3, EndLine: 5, Text: "  replicas: 3\n  x: ```\n"}
	c := bot.Comment{Path: "a.yaml", StartLine: 3, Line: 5, Body: bot.CommentBody([]checks.Finding{f}, sug),
		Findings: []checks.Finding{f}, Suggestion: sug, Fingerprints: []string{f.Fingerprint()}}
	got := gitlabBody(c, 2)
	if !strings.Contains(got, "````suggestion:-0+2\n  replicas: 3\n  x: ```\n````") {
		t.Errorf("gitlabBody has no suggestion:-0+2 block (with a fence longer than the text's backticks):\n%s", got)
	}
	if strings.Contains(got, "suggestion\n") {
		t.Errorf("a GitHub-style fence is left:\n%s", got)
	}
	if fps := bot.Fingerprints(got); len(fps) != 1 || fps[0] != f.Fingerprint() {
		t.Errorf("markers = %v, want the finding's fingerprint", fps)
	}
	plain := bot.Comment{Body: "hand-written"}
	if got := gitlabBody(plain, 0); got != "hand-written" {
		t.Errorf("a comment without findings became %q", got)
	}
}

func TestEndpointHidesVariableParts(t *testing.T) {
	for raw, want := range map[string]string{
		"/api/v4/projects/group%2Fproject/merge_requests/12/discussions/abc123": "PUT /projects/{id}/merge_requests/{iid}/discussions/{discussion}",
		"/api/v4/projects/7/repository/files/deploy%2Fapp.yaml/raw":             "PUT /projects/{id}/repository/files/{path}/raw",
		"/api/v4/projects/7/repository/blobs/0123456789abcdef/raw":              "PUT /projects/{id}/repository/blobs/{sha}/raw",
		"/api/v4/projects/7/statuses/0123456789abcdef":                          "PUT /projects/{id}/statuses/{sha}",
		"/api/v4/user": "PUT /user",
	} {
		u, err := url.Parse("https://gitlab.example.com" + raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := endpoint("PUT", u); got != want {
			t.Errorf("endpoint(%s) = %s, want %s", raw, got, want)
		}
	}
}
