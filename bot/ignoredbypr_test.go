package bot

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testconfig"
)

// addedPatch is the patch of a file the pull request adds with content s.
func addedPatch(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	var b strings.Builder
	b.WriteString("@@ -0,0 +1," + strconv.Itoa(len(lines)) + " @@\n")
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// TestIgnoreAllAddedByThePullRequestStillFails: the pull request adds a
// Deployment whose probe names an undeclared port (an error) and annotates
// it prodready.dev/ignore: all. The review fails, reports the finding, and
// lists the ignore as counted; the pull request's own .prodready.yaml
// saying true does nothing; review.allowIgnoresInPR: true at base makes it
// pass, the ignore still listed.
func TestIgnoreAllAddedByThePullRequestStillFails(t *testing.T) {
	ignored := strings.Replace(badProbe, "metadata:\n  name: web\n", "metadata:\n  name: web\n  annotations:\n    prodready.dev/ignore: all\n", 1)
	rule := testconfig.OnlyRule("probe-named-port-undeclared")
	allow := rule + "review: {allowIgnoresInPR: true}\n"
	for _, tc := range []struct {
		name, base, head, conclusion string
		honoured                     bool
	}{
		{"default", rule, rule, "failure", false},
		{"head's config", rule, allow, "failure", false},
		{"allowed at base", allow, allow, "success", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &memHost{
				refs: map[string]map[string]string{
					"base": {".prodready.yaml": tc.base},
					"head": {".prodready.yaml": tc.head, "app/web.yaml": ignored},
				},
				changed: []ChangedFile{{Path: "app/web.yaml", Status: "added", Patch: addedPatch(ignored)}},
			}
			rv := NewReviewer(NewLRUCache(1<<20), nil)
			if err := rv.Review(context.Background(), h, PullRequest{Repo: "o/r", Number: 1, BaseSHA: "base", HeadSHA: "head"}); err != nil {
				t.Fatal(err)
			}
			r := h.published[0]
			if r.Conclusion != tc.conclusion {
				t.Errorf("conclusion %s, want %s", r.Conclusion, tc.conclusion)
			}
			if len(r.IgnoredByPR) != 2 {
				t.Fatalf("ignored by the pull request: %+v", r.IgnoredByPR)
			}
			for _, ig := range r.IgnoredByPR {
				if ig.Honoured != tc.honoured || !ig.Added || ig.By != "prodready.dev/ignore: all" || ig.File != "app/web.yaml" || ig.Line != 6 {
					t.Errorf("%+v", ig)
				}
			}
			if reported := len(r.Findings) == 2; reported == tc.honoured {
				t.Errorf("findings reported: %d", len(r.Findings))
			}
			counted := strings.Contains(r.Summary, "counted because an ignore this pull request adds")
			if !strings.Contains(r.Summary, "### Ignored by this pull request") || counted == tc.honoured {
				t.Errorf("summary:\n%s", r.Summary)
			}
		})
	}
}

// refusingHost is a committingHost whose FixAuthorizer refuses every
// request.
type refusingHost struct{ committingHost }

func (h *refusingHost) AuthorizeFix(ctx context.Context, pr PullRequest, req FixRequest) error {
	return fmt.Errorf("%w: @mallory has read access", ErrNotAllowed)
}

// TestRunRefusedPressCommitsNothing: a request its host refuses computes
// and commits nothing; the refusal is logged with its reason and reported.
func TestRunRefusedPressCommitsNothing(t *testing.T) {
	var logs bytes.Buffer
	h := &refusingHost{committingHost{memHost: memHost{refs: map[string]map[string]string{"head": {"app/web.yaml": badProbe}}}}}
	ap := NewApplier(nil, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	job := Job{DeliveryID: "d", Host: h, PR: PullRequest{Repo: "o/r", Number: 1, HeadSHA: "head"}, Fix: &FixRequest{Mode: FixExact, Head: "head", Press: "p", By: "mallory", Thread: "1"}}
	if err := ap.Run(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if len(h.commits) != 0 || len(h.reported) != 1 || h.reported[0].Outcome != FixRefused || !strings.Contains(h.reported[0].Text, "@mallory has read access") {
		t.Errorf("commits %d, reported %+v", len(h.commits), h.reported)
	}
	if !strings.Contains(logs.String(), "fix request refused") || !strings.Contains(logs.String(), "mallory has read access") {
		t.Errorf("log:\n%s", logs.String())
	}
}
