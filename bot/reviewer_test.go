package bot

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/internal/testconfig"
	"github.com/prodready/prodready/internal/testmanifest"
)

// memHost is a Host over in-memory commits.
type memHost struct {
	refs       map[string]map[string]string // ref -> path -> content
	changed    []ChangedFile
	started    int
	published  []Review
	failed     []string
	publishErr error
	// allRules runs the whole catalog instead of the one-rule default config.
	allRules bool
	// blobSHAs gives every file its content's hash as blob SHA (the parse
	// cache's key).
	blobSHAs bool
}

func (h *memHost) ChangedFiles(ctx context.Context, pr PullRequest) ([]ChangedFile, error) {
	return h.changed, nil
}

func (h *memHost) ReadFile(ctx context.Context, pr PullRequest, ref, path string) ([]byte, error) {
	if s, ok := h.refs[ref][path]; ok {
		return []byte(s), nil
	}
	if path == checks.ConfigFileName && ref == "base" && !h.allRules {
		// Test repositories keep one rule on unless a test gives its own
		// config, so tests can state the exact review.
		return []byte(testconfig.OnlyRule("probe-named-port-undeclared")), nil
	}
	return nil, nil
}

func (h *memHost) Manifests(ctx context.Context, pr PullRequest, ref string, want Want, cache BlobCache) ([]File, error) {
	var paths []string
	for p := range h.refs[ref] {
		paths = append(paths, p)
	}
	picked := want(paths)
	var out []File
	for p, s := range h.refs[ref] {
		if picked[p] {
			f := File{Path: p, Data: []byte(s)}
			if h.blobSHAs {
				f.SHA = fmt.Sprintf("%x", sha256.Sum256([]byte(s)))
			}
			out = append(out, f)
		}
	}
	return out, nil
}

func (h *memHost) StartReview(ctx context.Context, pr PullRequest) (ReviewHandle, error) {
	h.started++
	return ReviewHandle{ID: 7}, nil
}

func (h *memHost) Publish(ctx context.Context, pr PullRequest, rh ReviewHandle, r Review) error {
	if h.publishErr != nil {
		return h.publishErr
	}
	h.published = append(h.published, r)
	return nil
}

func (h *memHost) Fail(ctx context.Context, pr PullRequest, rh ReviewHandle, msg string) error {
	h.failed = append(h.failed, msg)
	return nil
}

var badProbe = testmanifest.ProbeDeployment("metrics", "health")

// portSuggest replaces a named probe port with 8080 on the finding's line.
func portSuggest(path string, src []byte, fs []checks.Finding) ([]Suggestion, error) {
	lines := strings.Split(string(src), "\n")
	var out []Suggestion
	for i, f := range fs {
		l := lines[f.Line-1]
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		out = append(out, Suggestion{StartLine: f.Line, EndLine: f.Line, Text: indent + "port: 8080\n", Findings: []int{i}})
	}
	return out, nil
}

func TestReviewPlacesFindingsAndReadsConfigAtBase(t *testing.T) {
	h := &memHost{
		refs: map[string]map[string]string{
			"base": {"app/deploy.yaml": "kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n"},
			// The head tries to switch the rule off: it must not work.
			"head": {"app/deploy.yaml": badProbe, ".prodready.yaml": "rules:\n  probe-named-port-undeclared: false\n"},
		},
		// Line 17 (port: metrics) is added; line 20 (port: health) is context.
		changed: []ChangedFile{{Path: "app/deploy.yaml", Status: "modified", Patch: "@@ -14,7 +14,7 @@\n           image: nginx:1.27\n           livenessProbe:\n             tcpSocket:\n-              port: 8080\n+              port: metrics\n           readinessProbe:\n             tcpSocket:\n               port: health\n"}, {Path: ".prodready.yaml", Status: "added", Patch: "@@ -0,0 +1,2 @@\n+rules:\n+  probe-named-port-undeclared: false\n"}},
	}
	rv := NewReviewer(NewLRUCache(1<<20), nil)
	rv.Suggest = portSuggest
	pr := PullRequest{Repo: "o/r", Number: 1, BaseSHA: "base", HeadSHA: "head"}
	if err := rv.Review(context.Background(), h, pr); err != nil {
		t.Fatal(err)
	}
	if h.started != 1 || len(h.published) != 1 || len(h.failed) != 0 {
		t.Fatalf("started %d, published %d, failed %v", h.started, len(h.published), h.failed)
	}
	r := h.published[0]
	if len(r.Findings) != 2 || r.Conclusion != "failure" || r.Title != "2 new errors" {
		t.Fatalf("findings %d, conclusion %q, title %q", len(r.Findings), r.Conclusion, r.Title)
	}
	if len(r.Comments) != 1 {
		t.Fatalf("comments = %+v, want one on line 17", r.Comments)
	}
	c := r.Comments[0]
	if c.Path != "app/deploy.yaml" || c.StartLine != 17 || c.Line != 17 || !strings.Contains(c.Body, "```suggestion\n              port: 8080\n```") {
		t.Errorf("comment = %+v", c)
	}
	if len(r.Outside) != 1 || r.Outside[0].Line != 20 {
		t.Errorf("outside = %+v, want the finding on context line 20", r.Outside)
	}
	if !strings.Contains(r.Summary, "**2 new**") || !strings.Contains(r.Summary, "probe-named-port-undeclared") {
		t.Errorf("summary:\n%s", r.Summary)
	}
}

func TestReviewSuggestionOutsideHunkFallsBack(t *testing.T) {
	h := &memHost{
		refs:    map[string]map[string]string{"head": {"d.yaml": badProbe}},
		changed: []ChangedFile{{Path: "d.yaml", Status: "modified", Patch: "@@ -17,1 +17,1 @@\n-              port: 1\n+              port: metrics\n"}},
	}
	rv := NewReviewer(nil, nil)
	rv.Suggest = func(path string, src []byte, fs []checks.Finding) ([]Suggestion, error) {
		// A range reaching past the hunk: not commentable as a suggestion.
		return []Suggestion{{StartLine: 15, EndLine: 17, Text: "x\n", Findings: []int{0}}}, nil
	}
	pr := PullRequest{Number: 1, BaseSHA: "base", HeadSHA: "head"}
	r, err := rv.Prepare(context.Background(), h, pr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Comments) != 1 || r.Comments[0].StartLine != 17 || r.Comments[0].Line != 17 || strings.Contains(r.Comments[0].Body, "suggestion") {
		t.Errorf("comments = %+v, want a plain comment on line 17", r.Comments)
	}
}

func TestReviewNoManifestIsNeutral(t *testing.T) {
	h := &memHost{changed: []ChangedFile{{Path: "README.md", Status: "modified", Patch: "@@ -1 +1 @@\n-a\n+b\n"}}}
	rv := NewReviewer(nil, nil)
	if err := rv.Review(context.Background(), h, PullRequest{BaseSHA: "b", HeadSHA: "h"}); err != nil {
		t.Fatal(err)
	}
	if len(h.published) != 1 || h.published[0].Conclusion != "neutral" || len(h.published[0].Comments) != 0 {
		t.Fatalf("published %+v", h.published)
	}
}

func TestReviewErrorEndsTheRun(t *testing.T) {
	h := &memHost{
		refs:    map[string]map[string]string{"base": {".prodready.yaml": "nonsense: true\n"}},
		changed: []ChangedFile{{Path: "d.yaml", Status: "added"}},
	}
	rv := NewReviewer(nil, nil)
	err := rv.Review(context.Background(), h, PullRequest{BaseSHA: "base", HeadSHA: "head"})
	if err == nil || len(h.failed) != 1 || !strings.Contains(h.failed[0], "nonsense") {
		t.Fatalf("err %v, failed %v: want the config error reported on the check", err, h.failed)
	}
	h2 := &memHost{changed: []ChangedFile{{Path: "d.yaml", Status: "added"}}, publishErr: errors.New("boom")}
	if err := rv.Review(context.Background(), h2, PullRequest{BaseSHA: "b", HeadSHA: "h"}); err == nil || len(h2.failed) != 1 {
		t.Fatalf("publish error: err %v, failed %v", err, h2.failed)
	}
}

func TestReviewDraftFollowsBaseConfig(t *testing.T) {
	pr := PullRequest{BaseSHA: "base", HeadSHA: "head", Draft: true}
	h := &memHost{refs: map[string]map[string]string{"head": {".prodready.yaml": "review: {drafts: true}\n"}}}
	rv := NewReviewer(nil, nil)
	if err := rv.Review(context.Background(), h, pr); err != nil || h.started != 0 {
		t.Fatalf("draft without drafts at base: err %v, started %d", err, h.started)
	}
	h.refs["base"] = map[string]string{".prodready.yaml": "review: {drafts: true}\n"}
	if err := rv.Review(context.Background(), h, pr); err != nil || h.started != 1 {
		t.Fatalf("draft with drafts at base: err %v, started %d", err, h.started)
	}
}

func TestReviewFoldsCommentsBeyondCap(t *testing.T) {
	h := &memHost{
		refs:    map[string]map[string]string{"head": {"d.yaml": badProbe}},
		changed: []ChangedFile{{Path: "d.yaml", Status: "added", Patch: "@@ -0,0 +1,20 @@\n" + strings.Repeat("+x\n", 20)}},
	}
	h.refs["base"] = map[string]string{".prodready.yaml": "review: {maxComments: 1, inline: error}\n"}
	rv := NewReviewer(nil, nil)
	r, err := rv.Prepare(context.Background(), h, PullRequest{BaseSHA: "base", HeadSHA: "head", URL: "https://github.com/o/r/pull/1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Comments) != 1 || r.Comments[0].Line != 17 {
		t.Fatalf("comments = %+v, want only the first", r.Comments)
	}
	if len(r.Beyond) != 1 || r.Beyond[0].Line != 20 || !slices.ContainsFunc(r.Outside, func(f checks.Finding) bool { return f.Line == 20 && f.Severity == checks.Error }) || !strings.Contains(r.Summary, "](https://github.com/o/r/blob/head/d.yaml#L20)") {
		t.Errorf("beyond %+v, outside %+v, summary:\n%s\nthe second finding belongs in the summary with a link and in the annotations", r.Beyond, r.Outside, r.Summary)
	}
	if strings.Contains(r.Body, "\n") {
		t.Errorf("review body is not one line: %q", r.Body)
	}
}

func TestReviewPanicInSuggestEndsTheRun(t *testing.T) {
	h := &memHost{
		refs:    map[string]map[string]string{"head": {"d.yaml": badProbe}},
		changed: []ChangedFile{{Path: "d.yaml", Status: "added", Patch: "@@ -0,0 +1,20 @@\n" + strings.Repeat("+x\n", 20)}},
	}
	rv := NewReviewer(nil, nil)
	rv.Suggest = func(string, []byte, []checks.Finding) ([]Suggestion, error) { panic("boom") }
	err := rv.Review(context.Background(), h, PullRequest{BaseSHA: "base", HeadSHA: "head"})
	if err == nil || len(h.failed) != 1 || !strings.Contains(h.failed[0], "internal error") {
		t.Fatalf("err %v, failed %v", err, h.failed)
	}
}

func TestReviewMultiPartFix(t *testing.T) {
	patch := "@@ -0,0 +1,20 @@\n" + strings.Repeat("+x\n", 20)
	h := &memHost{
		refs:    map[string]map[string]string{"head": {"d.yaml": badProbe}},
		changed: []ChangedFile{{Path: "d.yaml", Status: "added", Patch: patch}},
	}
	rv := NewReviewer(nil, nil)
	two := func(end int) func(string, []byte, []checks.Finding) ([]Suggestion, error) {
		return func(string, []byte, []checks.Finding) ([]Suggestion, error) {
			return []Suggestion{
				{StartLine: 17, EndLine: 17, Text: "a\n", Findings: []int{0}},
				{StartLine: 19, EndLine: end, Text: "b\n", Findings: []int{0}},
			}, nil
		}
	}
	rv.Suggest = two(19)
	r, err := rv.Prepare(context.Background(), h, PullRequest{BaseSHA: "base", HeadSHA: "head"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A fix in two places is not half suggested: finding 0's thread says
	// prodready fix applies it; finding 1 (line 20) has its own thread.
	if len(r.Comments) != 2 || r.Comments[0].Suggestion != nil || !strings.Contains(r.Comments[0].Body, "changes 2 separate places") || r.Comments[1].Suggestion != nil {
		t.Fatalf("comments = %+v", r.Comments)
	}
	// One part reaches outside the diff: no part is suggested.
	rv.Suggest = two(25)
	r, err = rv.Prepare(context.Background(), h, PullRequest{BaseSHA: "base", HeadSHA: "head"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Comments {
		if c.Suggestion != nil {
			t.Errorf("comment %+v carries half a fix", c)
		}
	}
}

// namedConfigHost is a memHost whose config is another file, as the
// Action's config input makes it.
type namedConfigHost struct {
	memHost
	name string
}

func (h *namedConfigHost) ConfigName() string { return h.name }

// TestLoadConfigErrorsNameTheFile: the config at base is parsed as prodready
// check parses it, so its errors name the file, the line and the key, and
// the base commit.
func TestLoadConfigErrorsNameTheFile(t *testing.T) {
	pr := PullRequest{BaseSHA: "base"}
	h := &memHost{refs: map[string]map[string]string{"base": {checks.ConfigFileName: "failOn: error\nrulez: {}\n"}}}
	_, err := LoadConfig(context.Background(), h, pr)
	if want := `.prodready.yaml: line 2: unknown key "rulez" (did you mean "rules"?) (at base base)`; err == nil || err.Error() != want {
		t.Errorf("LoadConfig: %v\nwant %s", err, want)
	}
	named := &namedConfigHost{memHost: *h, name: "ci/prodready.yaml"}
	if _, err := LoadConfig(context.Background(), named, pr); err == nil || !strings.HasPrefix(err.Error(), "ci/prodready.yaml: line 2: ") {
		t.Errorf("LoadConfig with the Action's config: %v, want it to name ci/prodready.yaml", err)
	}
}
