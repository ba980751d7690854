package gitlab_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/internal/testconfig"
	"github.com/prodready/prodready/internal/testrepo"
)

// renderMR pushes base and head of fixtures/render/review to the fake
// GitLab, delivers the opened merge request to a server whose reviewer
// renders in process, and returns the bot's inline discussions as
// "path:line rule" and its summary note.
func renderMR(t *testing.T, base, head map[string]string) (inline []string, summary string) {
	t.Helper()
	p := loadPayload(t, "../../fixtures/gitlab/merge_request.update.json")
	project := p["project"].(map[string]any)
	pid := int64(project["id"].(float64))
	iid := int(p["object_attributes"].(map[string]any)["iid"].(float64))
	e := newE2EWith(t, pid, project["path_with_namespace"].(string), func(rv *bot.Reviewer) {
		rv.Render = render.InProcess
		rv.Suggest = bot.SuggestFixes
	})
	b := e.gl.Commit(pid, base)
	h := "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3"
	e.gl.CommitAs(pid, h, head)
	e.gl.Push(pid, iid, b, h, 0)
	if err := e.deliver(t, payload(t, p, "open", "", h), "render-1"); err != nil {
		t.Fatal(err)
	}
	for _, d := range e.gl.Discussions(pid, iid) {
		n := d.Notes[0]
		if n.Author.ID != e.gl.User.ID {
			continue
		}
		if n.Position == nil {
			summary = n.Body
			continue
		}
		rule := ""
		if i := strings.Index(n.Body, "`"); i >= 0 {
			if j := strings.Index(n.Body[i+1:], "`"); j >= 0 {
				rule = n.Body[i+1 : i+1+j]
			}
		}
		line := 0
		if n.Position.NewLine != nil {
			line = *n.Position.NewLine
		}
		// Only a fix that is an edit of a values file (replicas: {{
		// .Values.replicaCount }}), of a line the template writes as it
		// is (privileged: true) or of the base line an overlay's key comes
		// from (replicas: 1, verified by building the overlay again)
		// carries a suggestion.
		if strings.Contains(n.Body, "```suggestion") != (rule == "replicas-too-few" && (n.Position.NewPath == "charts/web/values.yaml" || n.Position.NewPath == "kustomize/base/deployment.yaml") || rule == "privileged-container") {
			t.Errorf("%s:%d %s: suggestion %v:\n%s", n.Position.NewPath, line, rule, strings.Contains(n.Body, "```suggestion"), n.Body)
		}
		if rule == "privileged-container" && !strings.Contains(n.Body, "\n            privileged: false\n```") {
			t.Errorf("%s:%d: the template line's fix is not suggested:\n%s", n.Position.NewPath, line, n.Body)
		}
		if n.Position.NewPath == "charts/web/values.yaml" && !strings.Contains(n.Body, "\nreplicaCount: 3\n```") {
			t.Errorf("%s:%d: the values fix is not suggested:\n%s", n.Position.NewPath, line, n.Body)
		}
		inline = append(inline, fmt.Sprintf("%s:%d %s", n.Position.NewPath, line, rule))
	}
	for _, c := range e.gl.Calls() {
		if c.Status >= 400 && !strings.Contains(c.Path, ".prodready.yaml") {
			t.Errorf("call refused: %s %s %d %s", c.Method, c.Path, c.Status, c.Body)
		}
	}
	sort.Strings(inline)
	return inline, summary
}

// TestRenderedMergeRequest: the same three merge requests as the GitHub
// tests, through the fake GitLab: a values and template change, a
// kustomize base change reviewing both overlays, a chart that no longer
// renders.
func TestRenderedMergeRequest(t *testing.T) {
	base := testrepo.Base(t)
	t.Run("helm", func(t *testing.T) {
		inline, summary := renderMR(t, base, testrepo.HelmChange(t, base))
		want := "charts/web/templates/deployment.yaml:21 readiness-probe-missing,charts/web/values.yaml:1 replicas-too-few"
		if strings.Join(inline, ",") != want {
			t.Errorf("inline discussions %v, want %s\nsummary:\n%s", inline, want, summary)
		}
		if !strings.Contains(summary, "**1 file not checked:**") || !strings.Contains(summary, "`charts/web/templates/NOTES.txt`") {
			t.Errorf("summary does not name NOTES.txt as not checked:\n%s", summary)
		}
	})
	t.Run("base", func(t *testing.T) {
		inline, summary := renderMR(t, base, testrepo.BaseChange(t, base))
		want := "kustomize/base/deployment.yaml:19 readiness-probe-missing,kustomize/base/deployment.yaml:6 replicas-too-few"
		if strings.Join(inline, ",") != want {
			t.Errorf("inline discussions %v, want %s\nsummary:\n%s", inline, want, summary)
		}
		if !strings.Contains(summary, "overlays/prod, the overlay kustomize/overlays/staging") {
			t.Errorf("summary does not name both overlays:\n%s", summary)
		}
	})
	t.Run("template line", func(t *testing.T) {
		base := testrepo.Base(t)
		base[".prodready.yaml"] = testconfig.OnlyRules(append(testrepo.Rules, "privileged-container")...)
		head := testrepo.Edit(t, base, "charts/web/templates/deployment.yaml", "        - name: web\n", "        - name: web\n          securityContext:\n            privileged: true\n")
		inline, summary := renderMR(t, base, head)
		if want := "charts/web/templates/deployment.yaml:20 privileged-container"; strings.Join(inline, ",") != want {
			t.Errorf("inline discussions %v, want %s\nsummary:\n%s", inline, want, summary)
		}
	})
	t.Run("broken", func(t *testing.T) {
		inline, summary := renderMR(t, base, testrepo.BrokenChange(t, base))
		if len(inline) != 0 {
			t.Errorf("inline discussions %v, want none", inline)
		}
		if !strings.Contains(summary, "**`charts/broken/templates/service.yaml`**\n\n- :x: **error** `render-failed` [line 4](") || !strings.Contains(summary, "service.name is required") {
			t.Errorf("summary lacks render-failed on charts/broken/templates/service.yaml:4:\n%s", summary)
		}
	})
}
