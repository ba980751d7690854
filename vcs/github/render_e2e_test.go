package github_test

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"testing"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
	"github.com/prodready/prodready/internal/testrepo"
)

// renderReview pushes base and head of fixtures/render/review to the fake
// GitHub, delivers the opened pull request to a server whose reviewer
// renders in process, and returns the check run and the review's comments
// as "path:line rule" (and their bodies by that key).
func renderReview(t *testing.T, base, head map[string]string) (fakegithub.CheckRun, []string, map[string]string) {
	t.Helper()
	st := newStackWith(t, 4, true, func(rv *bot.Reviewer) { rv.Render = render.InProcess; rv.Suggest = bot.SuggestFixes })
	st.fake.AddCommit("acme", "deploys", synthBase, base)
	st.fake.AddCommit("acme", "deploys", synthHead, head)
	st.fake.SetPR("acme", "deploys", 7, synthBase, synthHead)
	st.deliver(t, "pull_request", "r-1", syntheticOpened(t))
	<-st.done
	for _, c := range st.fake.Calls() {
		if c.Status >= 400 && !strings.HasSuffix(c.Path, "/contents/.prodready.yaml") {
			t.Errorf("call refused: %s %s", c, c.Body)
		}
	}
	runs := st.fake.CheckRuns("acme", "deploys")
	if len(runs) != 1 {
		t.Fatalf("check runs = %d, want 1\n%s", len(runs), st.logs)
	}
	var got []string
	bodies := map[string]string{}
	for _, rev := range st.fake.Reviews("acme", "deploys") {
		for _, c := range rev.Comments {
			rule := ""
			if i := strings.Index(c.Body, "`"); i >= 0 {
				if j := strings.Index(c.Body[i+1:], "`"); j >= 0 {
					rule = c.Body[i+1 : i+1+j]
				}
			}
			key := fmt.Sprintf("%s:%d %s", c.Path, c.Line, rule)
			got = append(got, key)
			bodies[key] = c.Body
		}
	}
	sort.Strings(got)
	return runs[0], got, bodies
}

func annotationsAt(run fakegithub.CheckRun) []string {
	var out []string
	for _, a := range run.Annotations {
		out = append(out, fmt.Sprintf("%s:%d %s", a.Path, a.StartLine, a.Title))
	}
	sort.Strings(out)
	return out
}

// TestRenderedHelmChange: a pull request lowers replicaCount in a chart's
// values.yaml and removes the readinessProbe from its template. The bot
// renders the chart at head (its helpers, NOTES.txt and a file the
// template reads come from the same tarball) and comments on the changed
// lines: the values line, with a suggestion, and the line above the
// removed probe.
func TestRenderedHelmChange(t *testing.T) {
	base := testrepo.Base(t)
	run, got, bodies := renderReview(t, base, testrepo.HelmChange(t, base))
	want := []string{
		"charts/web/templates/deployment.yaml:21 readiness-probe-missing",
		"charts/web/values.yaml:1 replicas-too-few",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("inline comments:\n%s\nwant:\n%s\nsummary:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), run.Summary)
	}
	// replicas: {{ .Values.replicaCount }}: the fix is an edit of the
	// values line, which rendering again shows right.
	if b := bodies["charts/web/values.yaml:1 replicas-too-few"]; !strings.Contains(b, "(rendered from the chart charts/web)") || !strings.Contains(b, "```suggestion\nreplicaCount: 3\n```") {
		t.Errorf("values comment should name the chart and suggest replicaCount: 3:\n%s", b)
	}
	// A replica count is a starting point: the suggestion says so first.
	if b := bodies["charts/web/values.yaml:1 replicas-too-few"]; !strings.Contains(b, bot.StartingPointLine+"\n\n```suggestion") {
		t.Errorf("the starting-point suggestion does not say so first:\n%s", b)
	}
	// The probe's fix edits the template, which is not a values edit: it
	// is described, not suggested.
	if b := bodies["charts/web/templates/deployment.yaml:21 readiness-probe-missing"]; !strings.Contains(b, "Fix (starting point): ") || strings.Contains(b, "```suggestion") || strings.Contains(b, bot.StartingPointLine) {
		t.Errorf("template comment should describe its fix, with no suggestion:\n%s", b)
	}
	if run.Conclusion != "success" || run.Title != "2 new warnings" {
		t.Errorf("check run %s %q, want success \"2 warnings\"", run.Conclusion, run.Title)
	}
	if len(run.Annotations) != 0 {
		t.Errorf("annotations %v, want none (both findings are inline)", annotationsAt(run))
	}
	for _, s := range []string{"**1 file not checked:**", "`charts/web/templates/NOTES.txt`"} {
		if !strings.Contains(run.Summary, s) {
			t.Errorf("summary lacks %q:\n%s", s, run.Summary)
		}
	}
	// The untouched overlays and chart are not reviewed.
	if strings.Contains(run.Summary, "kustomize/") || strings.Contains(run.Summary, "charts/broken") {
		t.Errorf("summary reports an untouched overlay or chart:\n%s", run.Summary)
	}
}

// TestRenderedBaseChange: a pull request changes a kustomize base; both
// overlays built on it are rendered and reviewed. The prod overlay keeps
// the base's one replica (a comment on the base line); staging patches it
// to 3. The missing readinessProbe is one comment naming both overlays.
func TestRenderedBaseChange(t *testing.T) {
	base := testrepo.Base(t)
	run, got, bodies := renderReview(t, base, testrepo.BaseChange(t, base))
	want := []string{
		"kustomize/base/deployment.yaml:19 readiness-probe-missing",
		"kustomize/base/deployment.yaml:6 replicas-too-few",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("inline comments:\n%s\nwant:\n%s\nsummary:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), run.Summary)
	}
	if b := bodies["kustomize/base/deployment.yaml:6 replicas-too-few"]; !strings.Contains(b, "(rendered from the overlay kustomize/overlays/prod)") {
		t.Errorf("replicas comment should name the prod overlay only:\n%s", b)
	}
	if b := bodies["kustomize/base/deployment.yaml:19 readiness-probe-missing"]; !strings.Contains(b, "(rendered from the overlay kustomize/overlays/prod, the overlay kustomize/overlays/staging)") {
		t.Errorf("probe comment should name both overlays:\n%s", b)
	}
	if run.Title != "2 new warnings" {
		t.Errorf("title %q, want 2 warnings", run.Title)
	}
}

// TestRenderedBrokenTemplate: the pull request breaks a chart's template
// (a port read from values the chart does not have); the render-failed
// error is an inline comment on the line it adds, where the author looks,
// and fails the check.
func TestRenderedBrokenTemplate(t *testing.T) {
	base := testrepo.Base(t)
	head := testrepo.Edit(t, base, "charts/broken/templates/service.yaml", "    - port: 80\n", "    - port: 80\n      targetPort: {{ .Values.ports.http }}\n")
	run, got, bodies := renderReview(t, base, head)
	const want = "charts/broken/templates/service.yaml:8 render-failed"
	if strings.Join(got, ",") != want {
		t.Errorf("inline comments %v, want %s\nsummary:\n%s", got, want, run.Summary)
	}
	if b := bodies[want]; !strings.Contains(b, "nil pointer evaluating interface {}.http") {
		t.Errorf("the comment does not quote the engine's error:\n%s", b)
	}
	if run.Conclusion != "failure" {
		t.Errorf("check run %s %q, want failure", run.Conclusion, run.Title)
	}
}

// TestRenderedBrokenChart: a values change breaks a chart's render; the
// render-failed error lands on the template line whose required fails
// (unchanged, so as an annotation) and fails the check.
func TestRenderedBrokenChart(t *testing.T) {
	base := testrepo.Base(t)
	run, got, _ := renderReview(t, base, testrepo.BrokenChange(t, base))
	if len(got) != 0 {
		t.Errorf("inline comments %v, want none", got)
	}
	if a := annotationsAt(run); strings.Join(a, ",") != "charts/broken/templates/service.yaml:4 render-failed" {
		t.Errorf("annotations %v, want render-failed on charts/broken/templates/service.yaml:4", a)
	}
	if run.Conclusion != "failure" || run.Title != "1 new error" {
		t.Errorf("check run %s %q, want failure \"1 error\"", run.Conclusion, run.Title)
	}
	if !strings.Contains(run.Summary, "service.name is required") {
		t.Errorf("summary lacks the render error:\n%s", run.Summary)
	}
}

// TestRenderedChangeOnlyHelper: a pull request changing only a chart's
// _helpers.tpl (no YAML) is reviewed: the chart is rendered (its NOTES.txt
// is named as not checked, which only a render finds).
func TestRenderedChangeOnlyHelper(t *testing.T) {
	base := testrepo.Base(t)
	head := testrepo.Edit(t, base, "charts/web/templates/_helpers.tpl", "app.kubernetes.io/instance: {{ .Release.Name }}\n", "app.kubernetes.io/instance: {{ .Release.Name }}\napp.kubernetes.io/part-of: shop\n")
	run, got, _ := renderReview(t, base, head)
	if run.Title != "No new findings" || run.Conclusion != "success" || len(got) != 0 {
		t.Errorf("check run %s %q, comments %v; want success, no findings", run.Conclusion, run.Title, got)
	}
	if !strings.Contains(run.Summary, "`charts/web/templates/NOTES.txt`") {
		t.Errorf("summary does not show the chart was rendered:\n%s", run.Summary)
	}
}

// TestRenderedTemplateLineSuggestion: a pull request makes the web
// container privileged on a line its template writes as it is. The
// comment on that line suggests the template line fixed, which the bot
// rendered the chart again to verify.
func TestRenderedTemplateLineSuggestion(t *testing.T) {
	base := testrepo.Base(t)
	base[".prodready.yaml"] = testconfig.OnlyRules(append(testrepo.Rules, "privileged-container")...)
	head := testrepo.Edit(t, base, "charts/web/templates/deployment.yaml", "        - name: web\n", "        - name: web\n          securityContext:\n            privileged: true\n")
	run, got, bodies := renderReview(t, base, head)
	key := "charts/web/templates/deployment.yaml:20 privileged-container"
	b, ok := bodies[key]
	if !ok {
		t.Fatalf("no comment %q among:\n%s\nsummary:\n%s", key, strings.Join(got, "\n"), run.Summary)
	}
	if !strings.Contains(b, "```suggestion\n            privileged: false\n```") {
		t.Errorf("the template line's comment should suggest it fixed:\n%s", b)
	}
}

// TestRenderedIgnoreAddedByThePullRequestIsDisclosed: an ignore comment
// the pull request adds on a chart template's line is listed under
// "Ignored by this pull request", as for a plain file. By default the
// finding rendered there is still commented (a pull request's ignores do
// not silence its own review); with review.allowIgnoresInPR: true at base
// it is silenced.
func TestRenderedIgnoreAddedByThePullRequestIsDisclosed(t *testing.T) {
	for _, allow := range []bool{false, true} {
		base := testrepo.Base(t)
		base[".prodready.yaml"] = testconfig.OnlyRules(append(testrepo.Rules, "privileged-container")...)
		if allow {
			base[".prodready.yaml"] += "review: {allowIgnoresInPR: true}\n"
		}
		head := testrepo.Edit(t, base, "charts/web/templates/deployment.yaml", "        - name: web\n", "        - name: web\n          securityContext:\n            privileged: true # prodready:ignore privileged-container it loads a kernel module\n")
		run, got, _ := renderReview(t, base, head)
		commented := false
		for _, k := range got {
			if strings.HasSuffix(k, " privileged-container") {
				commented = true
			}
		}
		if commented == allow {
			t.Errorf("allow %v: the ignored finding commented: %v (%v)", allow, commented, got)
		}
		if !strings.Contains(run.Summary, "Ignored by this pull request") || !strings.Contains(run.Summary, "prodready:ignore privileged-container it loads a kernel module") {
			t.Errorf("allow %v: the ignore in the template is not disclosed:\n%s", allow, run.Summary)
		}
	}
}

// TestRenderedSpreadFixWritingTheReleaseName: a pull request adds a chart
// of three replicas whose pods are not spread. The spread fix is made on
// the template's literal lines, with the rendered Deployment's selector
// as its labelSelector, whose app.kubernetes.io/instance is the name of
// the release the bot rendered. Where the template writes the selector's
// labels on lines of their own, the suggestion writes those lines
// ({{ .Release.Name }}); where it writes them as a flow mapping, there is
// nothing to copy: the comment suggests nothing, and says why the fix is
// withheld.
func TestRenderedSpreadFixWritingTheReleaseName(t *testing.T) {
	for _, tc := range []struct {
		name, selector, labels string
		line                   int
		suggested              bool
	}{
		{"lines", "    matchLabels:\n      app.kubernetes.io/name: spread\n      app.kubernetes.io/instance: {{ .Release.Name }}\n",
			"      labels:\n        app.kubernetes.io/name: spread\n        app.kubernetes.io/instance: {{ .Release.Name }}\n", 22, true},
		{"flow", "    matchLabels: {app.kubernetes.io/name: spread, app.kubernetes.io/instance: {{ .Release.Name }}}\n",
			"      labels: {app.kubernetes.io/name: spread, app.kubernetes.io/instance: {{ .Release.Name }}}\n", 12, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := testrepo.Base(t)
			base[".prodready.yaml"] = testconfig.OnlyRules(append(testrepo.Rules, "spread-missing")...)
			head := maps.Clone(base)
			head["charts/spread/Chart.yaml"] = "apiVersion: v2\nname: spread\nversion: 0.1.0\n"
			head["charts/spread/values.yaml"] = "{}\n"
			head["charts/spread/templates/deployment.yaml"] = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: spread
spec:
  replicas: 3
  selector:
` + tc.selector + `  template:
    metadata:
` + tc.labels + `    spec:
      containers:
        - name: web
          image: nginx:1.27
          readinessProbe:
            tcpSocket:
              port: 8080
`
			run, got, bodies := renderReview(t, base, head)
			key := fmt.Sprintf("charts/spread/templates/deployment.yaml:%d spread-missing", tc.line)
			b, ok := bodies[key]
			if !ok {
				t.Fatalf("no comment %q among:\n%s\nsummary:\n%s", key, strings.Join(got, "\n"), run.Summary)
			}
			if !tc.suggested {
				if strings.Contains(b, "```suggestion") {
					t.Errorf("the comment suggests a fix that writes the release's name:\n%s", b)
				}
				if !strings.Contains(b, `(withheld: its edit writes "release", which the render took from the release's name`) {
					t.Errorf("the comment does not say why the spread fix is withheld:\n%s", b)
				}
				return
			}
			if !strings.Contains(b, "```suggestion") || !strings.Contains(b, "              app.kubernetes.io/instance: {{ .Release.Name }}\n") || strings.Contains(b, "instance: release") {
				t.Errorf("the comment does not suggest the constraint as the selector's lines write it:\n%s", b)
			}
		})
	}
}

// TestRenderedBaseChangeNamesFiveOverlays: a base six overlays build on;
// the comment on a base line they all render names five of them and
// counts the sixth, as a review comment is kept short (check names them
// all).
func TestRenderedBaseChangeNamesFiveOverlays(t *testing.T) {
	base := testrepo.Base(t)
	for _, o := range []string{"o1", "o2", "o3", "o4"} {
		base["kustomize/overlays/"+o+"/kustomization.yaml"] = "resources:\n  - ../../base\nnamePrefix: " + o + "-\n"
	}
	run, _, bodies := renderReview(t, base, testrepo.BaseChange(t, base))
	b, ok := bodies["kustomize/base/deployment.yaml:19 readiness-probe-missing"]
	if !ok {
		t.Fatalf("no comment on the base's probe line; summary:\n%s", run.Summary)
	}
	const want = "(rendered from the overlay kustomize/overlays/o1, the overlay kustomize/overlays/o2, the overlay kustomize/overlays/o3, the overlay kustomize/overlays/o4, the overlay kustomize/overlays/prod and 1 more)"
	if !strings.Contains(b, want) {
		t.Errorf("the comment should name five overlays and count the sixth, %s:\n%s", want, b)
	}
}
